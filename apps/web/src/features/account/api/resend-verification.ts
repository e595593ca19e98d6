import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';

export const resendVerification = () => request<unknown>('/v1/user/email/verify/resend');

export const useResendVerification = () => useApiMutation(resendVerification, { titles: { success: 'Email sent', error: 'Could not send the email' } });
