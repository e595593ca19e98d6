import type { SessionPayload } from '@shiptrail/contract';
import { request } from '../../../lib/api-client';

export const verifyEmail = (key: string) =>
  request<SessionPayload>(`/v1/user/email/verify/${encodeURIComponent(key)}`, { auth: false, transportError: 'Verification Error' });
