import { API_TOKEN_HEADER } from '@shiptrail/contract';
import { ApiError } from '../../../lib/api-client';
import { getSession } from '../../../lib/session';

export const labelsPath = (tids: readonly string[]) => `/v1/shipment/labels?tids=${encodeURIComponent(tids.join(','))}`;

/** Reads the selection from /account/print?tids=A,B (one list, commas or repeated parameters). */
export function tidsFromSearch(search: URLSearchParams): string[] {
  const all = search.getAll('tids').flatMap((v) => v.split(','));
  return [...new Set(all.map((t) => t.trim()).filter(Boolean))];
}

/**
 * The label PDF comes with the session header, which a plain link cannot send, so it is fetched as a blob; a
 * refusal comes back as the usual envelope and becomes an ApiError with the server's message.
 */
export async function fetchLabels(tids: readonly string[], signal?: AbortSignal): Promise<Blob> {
  const headers: Record<string, string> = { accept: 'application/pdf, application/json' };
  const session = getSession();
  if (session) headers[API_TOKEN_HEADER] = session.token;
  let res: Response;
  try {
    res = await fetch(labelsPath(tids), { headers, signal });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError('Could not reach the server. Please try again.', 0, null);
  }
  const type = res.headers.get('content-type') ?? '';
  if (res.ok && type.includes('application/pdf')) return res.blob();
  let message = 'Could not make the labels. Please try again.';
  let code = res.status;
  try {
    const env = (await res.json()) as { message?: string; code?: number };
    if (env.message) message = env.message;
    if (env.code) code = env.code;
  } catch {
    // Not an envelope: keep the general message.
  }
  throw new ApiError(message, code, null);
}
