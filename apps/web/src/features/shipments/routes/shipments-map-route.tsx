import { Anchor, Group, MultiSelect, Text } from '@mantine/core';
import { OPEN_SHIPMENT_STATUSES, SHIPMENT_STATUSES, STATUS_LABELS, type ShipmentMarker, type ShipmentStatus } from '@shiptrail/contract';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { PageMap, type MapLine, type MapMarker } from '../../../components/map/lazy-map';
import { ListLink, PageHeader } from '../../../components/page-header';
import { statusLabel } from '../../../lib/format';
import { useUserInfo } from '../../../lib/user-info';
import { useShipmentMarkers } from '../api/get-markers';
import { routeLayers } from '../components/shipment-map';

/** Routes are drawn while they stay readable; past this many shipments the map shows points only. */
const MAX_LINES = 100;
/** A shipment's markers and line from its light marker; the popup links to its side panel on the shipments page. */
function layersOf(s: ShipmentMarker): { markers: MapMarker[]; line: MapLine | null } {
  const points = (
    [
      ['origin', s.origin],
      ['checkpoint', s.position],
      ['destination', s.destination],
    ] as const
  ).flatMap(([kind, p]) => (p ? [{ kind, lat: p.lat, lng: p.long }] : []));
  const popup = (
    <div>
      <Text fw={700} ff="monospace" size="sm">
        {s.tid}
      </Text>
      <Text size="sm">{statusLabel(s.status)}</Text>
      <Text size="sm">
        {s.originCity} → {s.destinationCity}
      </Text>
      <Text size="sm">Courier: {s.courier || 'unassigned'}</Text>
      <Anchor component={Link} to={`/account/shipments?tid=${encodeURIComponent(s.tid)}`} size="sm">
        Open details
      </Anchor>
    </div>
  );
  return routeLayers(s.tid, points, popup);
}

export default function ShipmentsMapRoute() {
  const { data: info } = useUserInfo();
  const [status, setStatus] = useState<ShipmentStatus[]>([]);
  // Every shipment in the statuses chosen (open ones by default), from the light markers call, page after page.
  const query = useShipmentMarkers(status, !!info);
  // A live status change is patched into the markers at once and their refetch waits a few seconds (lib/live.ts):
  // one that leaves the statuses shown leaves the map now.
  const list = useMemo(() => {
    const shown = new Set<string>(status.length ? status : OPEN_SHIPMENT_STATUSES);
    return (query.data ?? []).filter((s) => shown.has(s.status));
  }, [query.data, status]);
  const { markers, lines, placed } = useMemo(() => {
    const markers: MapMarker[] = [];
    const lines: MapLine[] = [];
    let placed = 0;
    for (const s of list) {
      const l = layersOf(s);
      if (l.markers.length) placed++;
      markers.push(...l.markers);
      if (l.line) lines.push(l.line);
    }
    return { markers, lines: lines.length <= MAX_LINES ? lines : [], placed };
  }, [list]);
  const what = status.length ? status.map((s) => STATUS_LABELS[s]).join(', ') : 'open';

  return (
    <>
      <PageHeader
        title="Shipments map"
        description="Where every shipment starts, was last reported and is going. Nearby points are grouped: click a group to zoom in."
        actions={<ListLink to="/account/shipments">Shipments</ListLink>}
      />
      <Group mb="sm" align="flex-end">
        <MultiSelect
          label="Status"
          placeholder={status.length ? undefined : 'Open shipments (not Delivered or Expired)'}
          data={SHIPMENT_STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] }))}
          value={status}
          onChange={(v) => setStatus(v as ShipmentStatus[])}
          clearable
          w={420}
          data-testid="map-status-filter"
        />
      </Group>
      <PageMap label="Shipments map" cluster markers={markers} lines={lines} />
      <Text mt="xs" size="sm" c="dimmed" data-testid="shipments-map-summary" data-count={list.length} data-placed={placed}>
        {query.isLoading
          ? 'Loading shipments…'
          : query.isError
            ? `Could not load the shipments: ${query.error.message}`
            : `${placed} of ${list.length} ${what} ${list.length === 1 ? 'shipment' : 'shipments'} on the map` +
              (list.length > placed ? ` (${list.length - placed} without a known position).` : '.') +
              (lines.length === 0 && list.length > MAX_LINES ? ' Routes are drawn for 100 shipments or fewer.' : '')}
      </Text>
    </>
  );
}
