import { queryOptions, useQuery } from '@tanstack/react-query';
import type { NotificationLogItem } from '@shiptrail/contract';
import { requestPayload } from '../../../lib/api-client';

export const notificationLogKey = ['notifications', 'log'] as const;

export const getNotificationLog = (limit = 100) =>
  requestPayload<NotificationLogItem[]>(`/v1/notifications/log?limit=${limit}`).then((l) => (Array.isArray(l) ? l : []));

export const notificationLogQueryOptions = (limit = 100) =>
  queryOptions({ queryKey: [...notificationLogKey, limit], queryFn: () => getNotificationLog(limit), refetchInterval: 20_000 });

export const useNotificationLog = (limit = 100) => useQuery(notificationLogQueryOptions(limit));
