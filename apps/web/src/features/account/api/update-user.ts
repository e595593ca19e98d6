import { useQueryClient } from '@tanstack/react-query';
import { dropEmptyStrings, type UpdateRequest, type UserInfo } from '@shiptrail/contract';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { storeUserInfo } from '../../../lib/user-info';

// Empty strings are dropped from settings before saving (product rules §5).
export const updateUser = (body: UpdateRequest) =>
  request<UserInfo>('/v1/user/general/update', { body: dropEmptyStrings(body), transportError: 'Error' });

export function useUpdateUser(opts: { toast?: boolean } = {}) {
  const qc = useQueryClient();
  return useApiMutation(updateUser, {
    toast: opts.toast,
    titles: { success: 'Saved', error: 'Could not save' },
    onSuccess: (env) => storeUserInfo(qc, env.payload),
  });
}
