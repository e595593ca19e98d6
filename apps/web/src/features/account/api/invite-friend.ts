import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';

export const inviteFriend = (body: { email: string }) =>
  request<unknown>('/v1/user/general/invitefriend', { body, transportError: 'Error' });

export const useInviteFriend = () =>
  useApiMutation(inviteFriend, { titles: { success: 'Invitation sent', error: 'Could not send the invitation' }, formFields: ['email'] });
