import { useQuery } from '@tanstack/react-query';
import type { MapConfig } from '@shiptrail/contract';

const OSM: MapConfig = {
  tileUrl: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
  attribution: '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors',
};

/** The server's tile settings (MAP_TILE_URL, MAP_ATTRIBUTION) from /web-config.json, read once per page load. */
async function getMapConfig(): Promise<MapConfig> {
  const r = await fetch('/web-config.json', { headers: { accept: 'application/json' } });
  if (!r.ok) return OSM;
  const body = (await r.json()) as { map?: MapConfig };
  return body.map ?? OSM;
}

export function useMapConfig() {
  return useQuery({ queryKey: ['web-config', 'map'], queryFn: getMapConfig, staleTime: Infinity, gcTime: Infinity, retry: 1 });
}
