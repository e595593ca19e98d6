import { request } from '../../../lib/api-client';

export const recoverPassword = (email: string) =>
  request<unknown>(`/v1/user/password/recover/${encodeURIComponent(email)}`, { auth: false, transportError: 'Error' });
