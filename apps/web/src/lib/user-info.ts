import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import type { UserInfo } from '@shiptrail/contract';
import { requestPayload } from './api-client';
import { withCopy } from './offline-copy';
import { getSession, setVersion, useSession } from './session';

export const userInfoKey = ['user-info'] as const;

/** The signed-in account; without signal, the copy kept from the last answer (a courier's phone opens offline). */
export async function getUserInfo(): Promise<UserInfo> {
  return withCopy('user-info', async () => {
    const v = getSession()?.version ?? '';
    const info = await requestPayload<UserInfo>(`/v1/user/info?v=${encodeURIComponent(v)}`);
    if (info.version) setVersion(info.version);
    return info;
  });
}

export const userInfoQueryOptions = () => queryOptions({ queryKey: userInfoKey, queryFn: getUserInfo, staleTime: 30_000 });

export function useUserInfo() {
  const session = useSession();
  return useQuery({ ...userInfoQueryOptions(), enabled: !!session });
}

/** The update call answers with the same payload as info: keep the cache and the version in step. */
export function storeUserInfo(qc: QueryClient, info: UserInfo | undefined | null) {
  if (!info || typeof info !== 'object' || !('profile' in info)) {
    void qc.invalidateQueries({ queryKey: userInfoKey });
    return;
  }
  qc.setQueryData(userInfoKey, info);
  if (info.version) setVersion(info.version);
}
