import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';

export const updatePassword = (body: { password: string; newpassword: string }) =>
  request<unknown>('/v1/user/general/passwordupdate', { body });

export const useUpdatePassword = () =>
  useApiMutation(updatePassword, {
    titles: { error: 'Could not change the password' },
    formFields: ['password', 'newpassword', 'repassword'],
  });
