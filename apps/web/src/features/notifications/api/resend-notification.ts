import { useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { notificationLogKey } from './get-notification-log';

export const resendNotification = (id: string) =>
  request<{ id: string; deliveryStatus: string }>(`/v1/notifications/resend/${encodeURIComponent(id)}`, { method: 'POST', body: {} });

export function useResendNotification() {
  const qc = useQueryClient();
  return useApiMutation(resendNotification, {
    titles: { success: 'Sent again', error: 'Could not send it again' },
    onSuccess: () => qc.invalidateQueries({ queryKey: notificationLogKey }),
  });
}
