import { queryOptions, useQuery } from '@tanstack/react-query';
import type { MemberView } from '@shiptrail/contract';
import { requestPayload } from './api-client';

// A company's members: the couriers page manages them and the shipment form offers them as couriers, so the
// list and its cache key are shared here rather than in either feature.
export const membersKey = ['members'] as const;

export async function getMembers(signal?: AbortSignal): Promise<MemberView[]> {
  const list = await requestPayload<MemberView[]>('/v1/user/general/getmembers', { body: {}, signal });
  return Array.isArray(list) ? list : [];
}

export const membersQueryOptions = () =>
  queryOptions({ queryKey: membersKey, queryFn: ({ signal }) => getMembers(signal), staleTime: 30_000 });

/** Only members with the courier role are offered as couriers. */
export const couriersOf = (members: readonly MemberView[]) => members.filter((m) => m.role === 'courier');

export const memberName = (m: Pick<MemberView, 'firstName' | 'lastName' | 'email'>) =>
  [m.firstName, m.lastName].filter(Boolean).join(' ') || m.email;

export function useMembers(enabled = true) {
  return useQuery({ ...membersQueryOptions(), enabled });
}
