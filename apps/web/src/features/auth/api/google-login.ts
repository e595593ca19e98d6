import type { SessionPayload } from '@shiptrail/contract';
import { request } from '../../../lib/api-client';

export interface GoogleCodeBody {
  code: string;
  state: string;
  userType?: 'person' | 'company';
  promocode?: string;
  referrer?: string;
  timeZone?: string;
  recaptcha?: string;
}

/** The return from Google: the server checks the state it issued and logs in or registers. */
export const googleLogin = (body: GoogleCodeBody) =>
  request<SessionPayload>('/v1/user/general/login', { body, auth: false, transportError: 'Error' });
