import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { API_TOKEN_HEADER, type Performance } from '@shiptrail/contract';
import { ApiError, requestPayload } from '../../../lib/api-client';
import { getSession } from '../../../lib/session';

/** The period asked for: the last `days` days, or `from`..`to` (YYYY-MM-DD, both included); and the stalled days. */
export type PerformancePeriod = ({ days: number } | { from: string; to: string }) & { stalledDays?: number };

export function performancePath(period: PerformancePeriod, format: 'json' | 'csv' = 'json'): string {
  const q = new URLSearchParams('days' in period ? { days: String(period.days) } : { from: period.from, to: period.to });
  if (period.stalledDays) q.set('stalledDays', String(period.stalledDays));
  if (format === 'csv') q.set('format', 'csv');
  return `/v1/trackings/performance?${q.toString()}`;
}

export const getPerformance = (period: PerformancePeriod) => requestPayload<Performance>(performancePath(period));

export function usePerformance(period: PerformancePeriod) {
  return useQuery({
    queryKey: ['trackings', 'performance', period],
    queryFn: () => getPerformance(period),
    // A new period keeps the figures on screen until its own arrive (no flash of the loader).
    placeholderData: keepPreviousData,
  });
}

/**
 * The CSV comes with the session header, which a plain link cannot send: fetched as a blob and saved under the
 * server's filename; a refusal comes back as the usual envelope and becomes an ApiError with its message.
 */
export async function downloadPerformanceCsv(period: PerformancePeriod): Promise<void> {
  const headers: Record<string, string> = { accept: 'text/csv, application/json' };
  const session = getSession();
  if (session) headers[API_TOKEN_HEADER] = session.token;
  let res: Response;
  try {
    res = await fetch(performancePath(period, 'csv'), { headers });
  } catch {
    throw new ApiError('Could not reach the server. Please try again.', 0, null);
  }
  if (!res.ok || !(res.headers.get('content-type') ?? '').includes('text/csv')) {
    let message = 'Could not export the figures. Please try again.';
    try {
      message = ((await res.json()) as { message?: string }).message ?? message;
    } catch {
      // Not an envelope: keep the general message.
    }
    throw new ApiError(message, res.status, null);
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'delivery-performance.csv';
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
