import { Button, Paper, Text } from '@mantine/core';
import { IconList } from '@tabler/icons-react';
import { LIMITS, MAP_DEFAULTS } from '@shiptrail/contract';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { LazyMap, type MapLine, type MapMarker } from '../../../components/map/lazy-map';
import { PageHeader } from '../../../components/page-header';
import { useUserInfo } from '../../../lib/user-info';
import { useShipments } from '../api/get-shipments';
import { shipmentLayers } from '../components/shipment-map';

export default function ShipmentsMapRoute() {
  const { data: info } = useUserInfo();
  const asCourier = info?.profile.role === 'courier';
  const query = useMemo(() => ({ numRecords: LIMITS.trackingsPerPage, status: [], courier: [] }), []);
  const list = useShipments(query, asCourier, !!info);
  const shipments = useMemo(() => list.data ?? [], [list.data]);
  const { markers, lines, placed } = useMemo(() => {
    const markers: MapMarker[] = [];
    const lines: MapLine[] = [];
    let placed = 0;
    for (const s of shipments) {
      const l = shipmentLayers(s, true);
      if (l.markers.length) placed++;
      markers.push(...l.markers);
      if (l.line) lines.push(l.line);
    }
    return { markers, lines, placed };
  }, [shipments]);

  return (
    <>
      <PageHeader
        title="Shipments map"
        description="Each shipment's origin, last checkpoint position and destination, where known."
        actions={
          <Button component={Link} to="/account/shipments" variant="default" leftSection={<IconList size={16} />}>
            Shipments
          </Button>
        }
      />
      <Paper p={0} style={{ overflow: 'hidden' }}>
        <LazyMap
          label="Shipments map"
          center={[MAP_DEFAULTS.center.lat, MAP_DEFAULTS.center.lng]}
          zoom={MAP_DEFAULTS.zoom}
          fitToMarkers
          height={MAP_DEFAULTS.minHeight}
          minHeight={MAP_DEFAULTS.minHeight}
          markers={markers}
          lines={lines}
        />
      </Paper>
      <Text mt="xs" size="sm" c="dimmed" data-testid="shipments-map-summary">
        {list.isLoading ? 'Loading shipments…' : `${placed} of ${shipments.length} ${shipments.length === 1 ? 'shipment' : 'shipments'} on the map (the newest ${LIMITS.trackingsPerPage}).`}
      </Text>
    </>
  );
}
