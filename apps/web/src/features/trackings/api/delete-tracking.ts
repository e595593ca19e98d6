import { useQueryClient } from '@tanstack/react-query';
import { userInfoKey } from '../../../lib/user-info';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { trackingsKey } from './get-trackings';

export const deleteTracking = (tid: string) => request<unknown>(`/v1/trackings/delete/${encodeURIComponent(tid)}`, { method: 'DELETE' });

export function useDeleteTracking() {
  const qc = useQueryClient();
  return useApiMutation(deleteTracking, {
    titles: { error: 'Could not delete' },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: trackingsKey });
      void qc.invalidateQueries({ queryKey: userInfoKey });
    },
  });
}
