import { useQueryClient } from '@tanstack/react-query';
import type { AddMemberRequest, DeleteMemberRequest, MemberView, UpdateMemberRequest } from '@shiptrail/contract';
import { request } from '../../../lib/api-client';
import { membersKey } from '../../../lib/members';
import { useApiMutation } from '../../../lib/use-api-mutation';

export const addMember = (body: AddMemberRequest) => request<MemberView>('/v1/user/general/addmember', { body });
export const updateMember = (body: UpdateMemberRequest) => request<MemberView>('/v1/user/general/updatemember', { body });
export const deleteMember = (body: DeleteMemberRequest) => request<unknown>('/v1/user/general/deletemember', { body });

function useRefetchMembers() {
  const qc = useQueryClient();
  return () => void qc.invalidateQueries({ queryKey: membersKey });
}

export function useAddMember(formFields: readonly string[]) {
  return useApiMutation(addMember, {
    onSuccess: useRefetchMembers(),
    titles: { success: 'Courier added', error: 'Could not add the courier' },
    formFields,
  });
}
export function useUpdateMember(formFields: readonly string[]) {
  return useApiMutation(updateMember, {
    onSuccess: useRefetchMembers(),
    titles: { success: 'Courier saved', error: 'Could not save the courier' },
    formFields,
  });
}
export function useDeleteMember() {
  const qc = useQueryClient();
  return useApiMutation(deleteMember, {
    titles: { success: 'Courier deleted', error: 'Could not delete the courier' },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: membersKey });
      // Their shipments stay with the company, now without a courier.
      void qc.invalidateQueries({ queryKey: ['shipments'] });
    },
  });
}
