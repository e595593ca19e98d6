import { useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AcceptInvitationRequest,
  CreateInvitationRequest,
  InvitationView,
  PublicInvitation,
  SessionPayload,
} from '@shiptrail/contract';
import { request, requestPayload } from '../../../lib/api-client';
import { membersKey } from '../../../lib/members';
import { useApiMutation } from '../../../lib/use-api-mutation';

export const invitationsKey = ['invitations'] as const;

export const createInvitation = (body: CreateInvitationRequest) => request<InvitationView>('/v1/user/invitations/create', { body });
export const resendInvitation = (id: string) => request<InvitationView>('/v1/user/invitations/resend', { body: { id } });
export const revokeInvitation = (id: string) => request<InvitationView>('/v1/user/invitations/revoke', { body: { id } });
export const getInvitation = (token: string) => request<PublicInvitation>(`/v1/invitations/${encodeURIComponent(token)}`, { auth: false });
export const acceptInvitation = (body: AcceptInvitationRequest) => request<SessionPayload>('/v1/invitations/accept', { body, auth: false });
export const declineInvitation = (token: string) => request<unknown>('/v1/invitations/decline', { body: { token }, auth: false });

export function useInvitations() {
  return useQuery({
    queryKey: invitationsKey,
    queryFn: ({ signal }) => requestPayload<InvitationView[]>('/v1/user/invitations/list', { method: 'GET', signal }),
    staleTime: 10_000,
  });
}

function useRefetch() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: invitationsKey });
    void qc.invalidateQueries({ queryKey: membersKey });
  };
}

export function useCreateInvitation(formFields: readonly string[]) {
  return useApiMutation(createInvitation, {
    onSuccess: useRefetch(),
    titles: { success: 'Courier invited', error: 'Could not invite the courier' },
    formFields,
  });
}
export function useResendInvitation() {
  return useApiMutation(resendInvitation, {
    onSuccess: useRefetch(),
    titles: { success: 'Invitation sent again', error: 'Could not resend the invitation' },
  });
}
export function useRevokeInvitation() {
  return useApiMutation(revokeInvitation, {
    onSuccess: useRefetch(),
    titles: { success: 'Invitation revoked', error: 'Could not revoke the invitation' },
  });
}
