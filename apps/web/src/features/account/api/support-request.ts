import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';

export const supportRequest = (body: { message: string }) => request<unknown>('/v1/user/general/supportrequest', { body });

export const useSupportRequest = () =>
  useApiMutation(supportRequest, { titles: { success: 'Sent', error: 'Could not send your message' }, formFields: ['message'] });
