import { request } from './api-client';
import { useApiMutation } from './use-api-mutation';

/** With the session's account, or, signed out, to an address (the call then carries no token; product rules §6). */
export const resendVerification = (email?: string) =>
  email
    ? request<unknown>(`/v1/user/email/verify/resend?email=${encodeURIComponent(email)}`, { auth: false })
    : request<unknown>('/v1/user/email/verify/resend');

export const useResendVerification = () =>
  useApiMutation((email?: string) => resendVerification(email), { titles: { success: 'Email sent', error: 'Could not send the email' } });
