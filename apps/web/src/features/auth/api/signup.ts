import type { SessionPayload, SignupRequest } from '@shiptrail/contract';
import { request } from '../../../lib/api-client';

export const signup = (body: SignupRequest) =>
  request<SessionPayload>('/v1/user/general/signup', { body, auth: false, transportError: 'Error!' });
