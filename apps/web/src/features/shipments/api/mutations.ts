import { useQueryClient } from '@tanstack/react-query';
import type { CreateShipmentRequest, EditShipmentRequest, ShipmentView, UpdateShipmentRequest } from '@shiptrail/contract';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { userInfoKey } from '../../../lib/user-info';
import { shipmentsKey } from './get-shipments';

export const createShipment = (body: CreateShipmentRequest) =>
  request<ShipmentView & { warning?: string }>('/v1/shipment/create', { body });
export const editShipment = (body: EditShipmentRequest) => request<ShipmentView>('/v1/shipment/edit', { body });
export const updateShipment = (body: UpdateShipmentRequest) => request<ShipmentView>('/v1/shipment/update', { body });

function useInvalidate() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: shipmentsKey });
    // The dashboard counts the company's shipments.
    void qc.invalidateQueries({ queryKey: userInfoKey });
  };
}

export function useCreateShipment() {
  const invalidate = useInvalidate();
  return useApiMutation(createShipment, { toast: false, onSuccess: invalidate });
}

export function useEditShipment() {
  const invalidate = useInvalidate();
  return useApiMutation(editShipment, { toast: false, onSuccess: invalidate });
}

export function useUpdateShipment() {
  const invalidate = useInvalidate();
  return useApiMutation(updateShipment, { toast: false, onSuccess: invalidate });
}
