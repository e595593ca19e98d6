// Travel for Plan the day (decision 118): an OSRM server's `table` (road times and distances) when
// ROUTING_URL is set, else the straight-line estimate (great-circle distance × road factor at an average
// speed). A road table that cannot be had (too many places, an error, a timeout) falls back to the estimate,
// and the plan says which it used.
import type { AppContext } from '../../context.ts';
import { travelMatrix, type Matrix, type Point } from './model.ts';

export type TravelSource = 'roads' | 'straight-line';

/** OSRM's default max-table-size: a bigger day uses the estimate. */
export const OSRM_TABLE_MAX = 100;

interface OsrmTable {
  code?: string;
  durations?: (number | null)[][];
  distances?: (number | null)[][];
}

/** GET {base}/table/v1/driving/{lon,lat;...}?annotations=duration,distance → seconds and km (unreachable: Infinity). */
export async function osrmTable(base: string, places: Point[], timeoutMs: number, fetchImpl: typeof fetch = fetch): Promise<Matrix> {
  const coords = places.map((p) => `${p.long.toFixed(6)},${p.lat.toFixed(6)}`).join(';');
  const url = `${base.replace(/\/+$/, '')}/table/v1/driving/${coords}?annotations=duration,distance`;
  const res = await fetchImpl(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`OSRM answered ${res.status}`);
  const body = (await res.json()) as OsrmTable;
  const n = places.length;
  if (body.code !== 'Ok' || body.durations?.length !== n || body.distances?.length !== n)
    throw new Error(`OSRM answered ${body.code ?? 'no code'}`);
  const time = new Float64Array(n * n);
  const distance = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const d = body.durations[i]?.[j];
      const m = body.distances[i]?.[j];
      time[i * n + j] = typeof d === 'number' && Number.isFinite(d) ? d : Infinity;
      distance[i * n + j] = typeof m === 'number' && Number.isFinite(m) ? m / 1000 : Infinity;
    }
  return { size: n, time, distance };
}

/** The travel matrix over `places`: roads when an OSRM server is configured and answers, else the estimate. */
export async function travelFor(ctx: AppContext, places: Point[]): Promise<{ matrix: Matrix; source: TravelSource }> {
  const estimate = () => travelMatrix(places, { speedKmh: ctx.config.ROUTING_SPEED_KMH, roadFactor: ctx.config.ROUTING_ROAD_FACTOR });
  const base = ctx.config.ROUTING_URL;
  if (!base || places.length > OSRM_TABLE_MAX) return { matrix: estimate(), source: 'straight-line' };
  try {
    return { matrix: await osrmTable(base, places, ctx.config.ROUTING_TIMEOUT_MS), source: 'roads' };
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'the routing server gave no table: the plan uses the straight-line estimate');
    return { matrix: estimate(), source: 'straight-line' };
  }
}
