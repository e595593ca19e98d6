import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CourierDay } from '@shiptrail/contract';
import { requestPayload } from '../../../lib/api-client';
import { withCopy } from '../../../lib/offline-copy';
import { shipmentsKey } from './get-shipments';

/** The start of the phone's day, as ISO-8601 with the phone's own offset (what the server counts from). */
export function localMidnight(now = new Date()): string {
  const d = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const pad = (n: number) => String(Math.floor(Math.abs(n))).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T00:00:00${sign}${pad(off / 60)}:${pad(off % 60)}`;
}

/** Today's stops; without signal, the copy kept on the phone from the last answer, with `savedAt` (decision 120). */
export async function getCourierDay(signal?: AbortSignal): Promise<CourierDay & { savedAt?: string }> {
  return withCopy('courier-day', () => requestPayload<CourierDay>('/v1/shipment/today', { body: { since: localMidnight() }, signal }));
}

// Under the shipments key: a checkpoint saved here or an event on the live stream refreshes the day too.
export const courierDayQueryOptions = () =>
  queryOptions({ queryKey: [...shipmentsKey, 'courier-day'], queryFn: ({ signal }) => getCourierDay(signal), refetchInterval: 60_000 });

export const useCourierDay = (enabled = true) => useQuery({ ...courierDayQueryOptions(), enabled });
