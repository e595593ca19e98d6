import { request } from './api-client';
import { useApiMutation } from './use-api-mutation';

export const resendVerification = () => request<unknown>('/v1/user/email/verify/resend');

export const useResendVerification = () => useApiMutation(resendVerification, { titles: { success: 'Email sent', error: 'Could not send the email' } });
