import { useQueryClient } from '@tanstack/react-query';
import { userInfoKey } from '../../../lib/user-info';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { trackingsKey } from './get-trackings';

export const markDelivered = (tid: string) => request<unknown>(`/v1/trackings/delivered/${encodeURIComponent(tid)}`);

export function useMarkDelivered() {
  const qc = useQueryClient();
  return useApiMutation(markDelivered, {
    titles: { error: 'Could not mark as delivered' },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: trackingsKey });
      void qc.invalidateQueries({ queryKey: userInfoKey });
    },
  });
}
