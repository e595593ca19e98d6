import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { ShipmentMarker, ShipmentMarkers, ShipmentStatus } from '@shiptrail/contract';
import { requestPayload } from '../../../lib/api-client';
import { shipmentsKey } from './get-shipments';

/** Under the shipments key: whatever refreshes the list (a create, an assignment, a live event) refreshes the map. */
export const markersKey = (status: readonly ShipmentStatus[]) => [...shipmentsKey, 'markers', [...status].sort().join(',')] as const;

/** Every marker in the statuses asked for (the open ones when none), page after page: the map has no cap. */
export async function getAllMarkers(status: readonly ShipmentStatus[], signal?: AbortSignal): Promise<ShipmentMarker[]> {
  const out: ShipmentMarker[] = [];
  let afterTid: string | null = null;
  do {
    const page: ShipmentMarkers = await requestPayload<ShipmentMarkers>('/v1/shipment/markers', {
      body: { ...(status.length ? { status } : {}), ...(afterTid ? { afterTid } : {}) },
      signal,
    });
    out.push(...page.markers);
    afterTid = page.nextTid;
  } while (afterTid);
  return out;
}

export function useShipmentMarkers(status: readonly ShipmentStatus[], enabled = true) {
  return useQuery({
    queryKey: markersKey(status),
    queryFn: ({ signal }) => getAllMarkers(status, signal),
    placeholderData: keepPreviousData,
    enabled,
  });
}
