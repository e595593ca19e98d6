import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { requestPayload } from '../../../lib/api-client';
import type { TrackingView } from '@shiptrail/contract';
import type { TrackingFilters } from './types';

export interface TrackingPageQuery extends TrackingFilters {
  numRecords: number;
  lastTid?: string;
}

export const trackingsKey = ['trackings'] as const;

export function getTrackings(q: TrackingPageQuery, signal?: AbortSignal): Promise<TrackingView[]> {
  const params = new URLSearchParams({ numRecords: String(q.numRecords) });
  if (q.lastTid) params.set('lastTid', q.lastTid);
  if (q.status.length) params.set('status', q.status.join(','));
  if (q.courier.length) params.set('courier', q.courier.join(','));
  return requestPayload<TrackingView[]>(`/v1/trackings/get?${params}`, { signal }).then((list) => (Array.isArray(list) ? list : []));
}

export const trackingsQueryOptions = (q: TrackingPageQuery) =>
  queryOptions({
    queryKey: [...trackingsKey, q],
    queryFn: ({ signal }) => getTrackings(q, signal),
    placeholderData: keepPreviousData,
    // Parcels move on their own: the live stream updates the list as they do; this poll is only the fallback
    // for a stream that cannot connect (a proxy that buffers, say).
    refetchInterval: 60_000,
  });

export const useTrackings = (q: TrackingPageQuery) => useQuery(trackingsQueryOptions(q));
