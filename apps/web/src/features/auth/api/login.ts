import type { SessionPayload } from '@shiptrail/contract';
import { request } from '../../../lib/api-client';

export const login = (body: { email: string; password: string; recaptcha?: string }) =>
  request<SessionPayload>('/v1/user/general/login', { body, auth: false, transportError: 'Error' });
