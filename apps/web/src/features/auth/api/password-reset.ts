import { request } from '../../../lib/api-client';

export const resetPassword = (body: { password: string; verifycode: string }) =>
  request<unknown>('/v1/user/general/passwordreset', { body, auth: false, transportError: 'Verification Error' });
