import type { FeatureCollection, Geometry, MultiLineString } from 'geojson';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
// The outline data stays out of the JavaScript: Vite emits each file as a hashed static asset and gives its
// URL, and the map fetches them only when it has to draw them (no tiles, or tiles failing).
import countriesUrl from 'world-atlas/countries-110m.json?url';
import statesUrl from 'us-atlas/states-10m.json?url';

export interface Outlines {
  countries: FeatureCollection<Geometry>;
  /** US state borders as lines (internal borders once, not each state's ring twice). */
  states: MultiLineString;
}

let loading: Promise<Outlines> | undefined;

async function topology(url: string): Promise<Topology> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`outline data: HTTP ${r.status}`);
  return (await r.json()) as Topology;
}

/** Country outlines (world-atlas, 1:110m) and US state borders (us-atlas, 1:10m), fetched once per page. */
export function loadOutlines(): Promise<Outlines> {
  loading ??= Promise.all([topology(countriesUrl), topology(statesUrl)])
    .then(([world, us]) => ({
      countries: feature(world, world.objects.countries as GeometryCollection) as unknown as FeatureCollection<Geometry>,
      states: mesh(us, us.objects.states as GeometryCollection, (a, b) => a !== b),
    }))
    .catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
  return loading;
}
