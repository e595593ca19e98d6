import { Center, Loader, Paper } from '@mantine/core';
import { MAP_DEFAULTS } from '@shiptrail/contract';
import { lazy, Suspense } from 'react';
import type { MapViewProps } from './map-view';

export type { MapLine, MapMarker, MapViewProps } from './map-view';

// Leaflet and its stylesheet are a chunk of their own, fetched only when a map is on screen.
const MapView = lazy(() => import('./map-view'));

export function LazyMap(props: MapViewProps) {
  return (
    <Suspense
      fallback={
        <Center h={props.height} mih={props.minHeight}>
          <Loader aria-label="Loading the map" />
        </Center>
      }
    >
      <MapView {...props} />
    </Suspense>
  );
}

/**
 * A map that is the page (the shipments map, the couriers map): framed edge to edge, at the default place and zoom,
 * its view fitted to the markers (when the set of them changes, not when one moves), as tall as the defaults say.
 */
export function PageMap(props: Omit<MapViewProps, 'center' | 'zoom' | 'height' | 'minHeight' | 'fitToMarkers'>) {
  return (
    <Paper p={0} style={{ overflow: 'hidden' }}>
      <LazyMap
        center={[MAP_DEFAULTS.center.lat, MAP_DEFAULTS.center.lng]}
        zoom={MAP_DEFAULTS.zoom}
        fitToMarkers
        height={MAP_DEFAULTS.minHeight}
        minHeight={MAP_DEFAULTS.minHeight}
        {...props}
      />
    </Paper>
  );
}
