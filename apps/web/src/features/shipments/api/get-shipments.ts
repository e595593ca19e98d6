import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ShipmentStatus, ShipmentView } from '@shiptrail/contract';
import { requestPayload } from '../../../lib/api-client';

export interface ShipmentPageQuery {
  numRecords: number;
  lastTid?: string;
  status: ShipmentStatus[];
  /** Courier emails. */
  courier: string[];
}

export const shipmentsKey = ['shipments'] as const;

/**
 * A company lists its shipments; a courier lists only the ones assigned to them, through its own call, so a
 * courier's screen never asks for the company's list.
 */
export function shipmentsPath(asCourier: boolean) {
  return asCourier ? '/v1/shipment/getassigned' : '/v1/shipment/getshipments';
}

export function shipmentsBody(q: ShipmentPageQuery) {
  return {
    numRecords: q.numRecords,
    ...(q.lastTid ? { lastTid: q.lastTid } : {}),
    ...(q.status.length ? { status: q.status } : {}),
    ...(q.courier.length ? { courier: q.courier } : {}),
  };
}

export async function getShipments(q: ShipmentPageQuery, asCourier: boolean, signal?: AbortSignal): Promise<ShipmentView[]> {
  const list = await requestPayload<ShipmentView[]>(shipmentsPath(asCourier), { body: shipmentsBody(q), signal });
  return Array.isArray(list) ? list : [];
}

export const shipmentsQueryOptions = (q: ShipmentPageQuery, asCourier: boolean) =>
  queryOptions({
    queryKey: [...shipmentsKey, asCourier ? 'assigned' : 'company', q],
    queryFn: ({ signal }) => getShipments(q, asCourier, signal),
    placeholderData: keepPreviousData,
    // Couriers update shipments from the road: the live stream brings each update; this poll is the fallback.
    refetchInterval: 60_000,
  });

export const useShipments = (q: ShipmentPageQuery, asCourier: boolean, enabled = true) =>
  useQuery({ ...shipmentsQueryOptions(q, asCourier), enabled });
