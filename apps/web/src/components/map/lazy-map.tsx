import { Center, Loader } from '@mantine/core';
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
