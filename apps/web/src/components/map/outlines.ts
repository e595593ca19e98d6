import type { FeatureCollection, Geometry, MultiLineString } from 'geojson';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
// The outline data stays out of the JavaScript: Vite emits each file as a hashed static asset and gives its
// URL, and the map fetches them only when it has to draw them (no tiles, or tiles failing).
import countriesUrl from 'world-atlas/countries-110m.json?url';
import statesUrl from 'us-atlas/states-10m.json?url';
// Canada's provincial and territorial borders (Natural Earth 1:50m, scripts/canada-outlines.mjs): 18 KB.
import provincesUrl from './data/canada-provinces.json?url';

export interface Outlines {
  countries: FeatureCollection<Geometry>;
  /** US state borders as lines (internal borders once, not each state's ring twice). */
  states: MultiLineString;
  /** Borders between Canada's provinces and territories, as lines. */
  provinces: MultiLineString;
}

let loading: Promise<Outlines> | undefined;

async function fetchJson<T>(url: string): Promise<T> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`outline data: HTTP ${r.status}`);
  return (await r.json()) as T;
}

/**
 * Country outlines (world-atlas, 1:110m), US state borders (us-atlas, 1:10m) and Canadian provincial borders
 * (Natural Earth, 1:50m), fetched once per page.
 */
export function loadOutlines(): Promise<Outlines> {
  loading ??= Promise.all([fetchJson<Topology>(countriesUrl), fetchJson<Topology>(statesUrl), fetchJson<MultiLineString>(provincesUrl)])
    .then(([world, us, provinces]) => ({
      countries: feature(world, world.objects.countries as GeometryCollection) as unknown as FeatureCollection<Geometry>,
      states: mesh(us, us.objects.states as GeometryCollection, (a, b) => a !== b),
      provinces,
    }))
    .catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
  return loading;
}
