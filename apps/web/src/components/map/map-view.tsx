import 'leaflet/dist/leaflet.css';
import './map-view.css';
import { Box, Loader, Center } from '@mantine/core';
import L, { type LatLngExpression } from 'leaflet';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import Supercluster from 'supercluster';
import { GeoJSON, MapContainer, Marker, Pane, Polyline, Popup, TileLayer, Tooltip, useMap, useMapEvents } from 'react-leaflet';
import { loadOutlines, type Outlines } from './outlines';
import { useMapConfig } from './map-config';

export interface MapMarker {
  id: string;
  lat: number;
  lng: number;
  /** Marker colour role: what the point is. */
  kind: 'origin' | 'destination' | 'checkpoint' | 'courier';
  /** Short text on the marker itself (a courier's initials); may be empty. */
  text?: string;
  title: string;
  /** Always shown beside the marker (a courier's name and the time of the fix). */
  label?: string;
  popup?: ReactNode;
  /** A colour of its own (a planned stop in its courier's colour), over the kind's. */
  color?: string;
}

export interface MapLine {
  id: string;
  points: Array<[number, number]>;
  /** A planned route: solid, in its courier's colour (a shipment's path is dashed blue). */
  color?: string;
}

export interface MapViewProps {
  center: [number, number];
  zoom: number;
  /** Fit the view to the markers once they are known (otherwise centre and zoom stay as given). */
  fitToMarkers?: boolean;
  /** The closest the fit zooms in (10 by default: a region; a day's routes in a town want a street view). */
  maxFitZoom?: number;
  markers: MapMarker[];
  lines?: MapLine[];
  height: number | string;
  minHeight?: number;
  label: string;
  /** Group nearby markers into one numbered circle that opens on a click (supercluster). */
  cluster?: boolean;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function icon(m: MapMarker) {
  return L.divIcon({
    className: 'st-marker-host',
    html: `<span class="st-marker st-marker-${m.kind}" data-marker-id="${escapeHtml(m.id)}" title="${escapeHtml(m.title)}"${
      m.color && /^#[0-9a-f]{3,8}$/i.test(m.color) ? ` style="background:${m.color}"` : ''
    }>${escapeHtml(m.text ?? '')}</span>`,
    iconSize: m.kind === 'courier' ? [30, 30] : [18, 18],
    iconAnchor: m.kind === 'courier' ? [15, 15] : [9, 9],
    popupAnchor: [0, -10],
  });
}

function FitBounds({ markers, enabled, maxZoom = 10 }: { markers: MapMarker[]; enabled: boolean; maxZoom?: number }) {
  const map = useMap();
  const key = markers.map((m) => m.id).join('|');
  useEffect(() => {
    if (!enabled || markers.length === 0) return;
    if (markers.length === 1) map.setView([markers[0]!.lat, markers[0]!.lng], Math.max(map.getZoom(), 8));
    else map.fitBounds(L.latLngBounds(markers.map((m) => [m.lat, m.lng] as [number, number])), { padding: [32, 32], maxZoom });
    // Only when the set of markers changes, not when one moves: a moving courier must not yank the view.
  }, [key, enabled, map]);
  return null;
}

function MarkerItem({ m }: { m: MapMarker }) {
  return (
    <Marker position={[m.lat, m.lng]} icon={icon(m)} title={m.title} alt={m.title}>
      {m.label && (
        <Tooltip permanent direction="auto" offset={[14, 0]} className="st-marker-label">
          {m.label}
        </Tooltip>
      )}
      {m.popup && <Popup>{m.popup}</Popup>}
    </Marker>
  );
}

function clusterIcon(count: number) {
  const size = count < 10 ? 30 : count < 100 ? 36 : count < 1000 ? 42 : 48;
  return L.divIcon({
    className: 'st-marker-host',
    html: `<span class="st-cluster" data-cluster-count="${count}" title="${count} points: click to zoom in">${count >= 1000 ? `${Math.floor(count / 1000)}k` : count}</span>`,
    iconSize: [size, size],
    iconAnchor: [size / 2, size / 2],
  });
}

/**
 * The markers grouped for the current view: supercluster indexes them once per set, and each move or zoom asks
 * it for the clusters in the visible box (a few hundred elements on screen, whatever the number of markers).
 */
function ClusteredMarkers({ markers }: { markers: MapMarker[] }) {
  const map = useMap();
  const [view, setView] = useState(() => ({ bounds: map.getBounds(), zoom: map.getZoom() }));
  useMapEvents({ moveend: () => setView({ bounds: map.getBounds(), zoom: map.getZoom() }) });
  const index = useMemo(() => {
    const sc = new Supercluster<{ i: number }>({ radius: 56, maxZoom: 15 });
    sc.load(markers.map((m, i) => ({ type: 'Feature', properties: { i }, geometry: { type: 'Point', coordinates: [m.lng, m.lat] } })));
    return sc;
  }, [markers]);
  const b = view.bounds;
  const box: [number, number, number, number] = [
    Math.max(-180, b.getWest()),
    Math.max(-85, b.getSouth()),
    Math.min(180, b.getEast()),
    Math.min(85, b.getNorth()),
  ];
  const clusters = index.getClusters(box, Math.round(view.zoom));
  return (
    <>
      {clusters.map((c) => {
        const [lng, lat] = c.geometry.coordinates as [number, number];
        if ('cluster' in c.properties && c.properties.cluster) {
          const id = c.properties.cluster_id;
          return (
            <Marker
              key={`cluster-${id}`}
              position={[lat, lng]}
              icon={clusterIcon(c.properties.point_count)}
              title={`${c.properties.point_count} points`}
              eventHandlers={{ click: () => map.setView([lat, lng], Math.min(index.getClusterExpansionZoom(id), 18)) }}
            />
          );
        }
        const m = markers[(c.properties as { i: number }).i]!;
        return <MarkerItem key={m.id} m={m} />;
      })}
    </>
  );
}

/** Outlines of countries, US states and Canadian provinces, drawn under the markers when there are no tiles to show. */
function OutlineLayer() {
  const [data, setData] = useState<Outlines | null>(null);
  useEffect(() => {
    let live = true;
    loadOutlines().then(
      (d) => live && setData(d),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  if (!data) return null;
  return (
    <Pane name="outlines" style={{ zIndex: 250 }}>
      <GeoJSON
        data={data.countries}
        attribution="Outlines: Natural Earth, US Census Bureau"
        style={{ className: 'st-outline st-outline-country', color: '#7b8794', weight: 1, fillColor: '#eef2f5', fillOpacity: 1 }}
        interactive={false}
      />
      <GeoJSON
        data={data.states}
        style={{ className: 'st-outline st-outline-state', color: '#9aa5b1', weight: 0.7, fill: false }}
        interactive={false}
      />
      <GeoJSON
        data={data.provinces}
        style={{ className: 'st-outline st-outline-province', color: '#9aa5b1', weight: 0.7, fill: false }}
        interactive={false}
      />
    </Pane>
  );
}

/**
 * A Leaflet map with the server's tiles, falling back to packaged outlines when tiles are turned off or fail
 * to load (no route to a tile server is common on private deployments). Loaded only by map pages, lazily.
 */
export default function MapView({
  center,
  zoom,
  fitToMarkers = false,
  maxFitZoom,
  markers,
  lines = [],
  height,
  minHeight,
  label,
  cluster = false,
}: MapViewProps) {
  const config = useMapConfig();
  const [tilesFailed, setTilesFailed] = useState(false);
  const tileUrl = config.data?.tileUrl ?? null;
  const offline = !config.isLoading && (tileUrl === null || tilesFailed);
  const tileEvents = useMemo(() => ({ tileerror: () => setTilesFailed(true) }), []);
  const start: LatLngExpression = center;

  if (config.isLoading)
    return (
      <Center h={height} mih={minHeight}>
        <Loader aria-label="Loading the map" />
      </Center>
    );
  return (
    <Box
      className={offline ? 'st-map st-map-offline' : 'st-map'}
      h={height}
      mih={minHeight}
      role="region"
      aria-label={label}
      data-offline={offline ? 'true' : 'false'}
    >
      <MapContainer center={start} zoom={zoom} style={{ height: '100%', width: '100%', minHeight }} worldCopyJump>
        {tileUrl && !tilesFailed && <TileLayer url={tileUrl} attribution={config.data?.attribution ?? ''} eventHandlers={tileEvents} />}
        {offline && <OutlineLayer />}
        {lines.map((l) =>
          l.color ? (
            <Polyline key={l.id} positions={l.points} className="st-route st-route-planned" color={l.color} weight={4} opacity={0.85} />
          ) : (
            <Polyline key={l.id} positions={l.points} className="st-route" color="#1c7ed6" weight={3} opacity={0.8} dashArray="6 6" />
          ),
        )}
        {cluster ? <ClusteredMarkers markers={markers} /> : markers.map((m) => <MarkerItem key={m.id} m={m} />)}
        <FitBounds markers={markers} enabled={fitToMarkers} maxZoom={maxFitZoom} />
      </MapContainer>
    </Box>
  );
}
