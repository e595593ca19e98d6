import { useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { userInfoKey } from '../../../lib/user-info';

export const dismissAlert = (id: string) =>
  request<unknown>(`/v1/user/alerts/dismiss/${encodeURIComponent(id)}`, { method: 'POST', body: {} });

export function useDismissAlert() {
  const qc = useQueryClient();
  return useApiMutation(dismissAlert, {
    titles: { error: 'Could not dismiss the alert' },
    onSuccess: () => qc.invalidateQueries({ queryKey: userInfoKey }),
  });
}
