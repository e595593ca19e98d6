import { useQueryClient } from '@tanstack/react-query';
import { userInfoKey } from '../../../lib/user-info';
import type { TrackingView } from '@shiptrail/contract';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { trackingsKey } from './get-trackings';

export const refreshTracking = (tid: string) =>
  request<TrackingView>(`/v1/trackings/refresh/${encodeURIComponent(tid)}`, { method: 'POST', body: {} });

export function useRefreshTracking() {
  const qc = useQueryClient();
  return useApiMutation(refreshTracking, {
    titles: { error: 'Could not refresh' },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: trackingsKey });
      void qc.invalidateQueries({ queryKey: userInfoKey });
    },
  });
}
