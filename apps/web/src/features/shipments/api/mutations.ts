import { useQueryClient } from '@tanstack/react-query';
import type {
  AssignShipmentsRequest,
  CreateShipmentRequest,
  EditShipmentRequest,
  ShipmentView,
  UnassignShipmentsRequest,
  UpdateShipmentRequest,
} from '@shiptrail/contract';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { userInfoKey } from '../../../lib/user-info';
import { toastSuccess } from '../../../lib/notify';
import { shipmentsKey } from './get-shipments';

export const createShipment = (body: CreateShipmentRequest) =>
  request<ShipmentView & { warning?: string }>('/v1/shipment/create', { body });
export const editShipment = (body: EditShipmentRequest) => request<ShipmentView>('/v1/shipment/edit', { body });
export const assignShipments = (body: AssignShipmentsRequest) => request<ShipmentView[]>('/v1/shipment/assign', { body });
export const unassignShipments = (body: UnassignShipmentsRequest) => request<ShipmentView[]>('/v1/shipment/unassign', { body });
export const updateShipment = (body: UpdateShipmentRequest) => request<ShipmentView>('/v1/shipment/update', { body });

/** Refetch what a shipment change shows in: the lists, the courier's day, the dashboard's counts. */
export function useInvalidateShipments() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: shipmentsKey });
    // The dashboard counts the company's shipments.
    void qc.invalidateQueries({ queryKey: userInfoKey });
  };
}

export function useCreateShipment() {
  const invalidate = useInvalidateShipments();
  return useApiMutation(createShipment, { toast: false, onSuccess: invalidate });
}

export function useEditShipment() {
  const invalidate = useInvalidateShipments();
  return useApiMutation(editShipment, { toast: false, onSuccess: invalidate });
}

export function useUpdateShipment() {
  const invalidate = useInvalidateShipments();
  return useApiMutation(updateShipment, { toast: false, onSuccess: invalidate });
}

/** Bulk assignment: the server's message ("3 shipments assigned to Dana Lee") or its refusal is the toast. */
export function useAssignShipments() {
  const invalidate = useInvalidateShipments();
  const qc = useQueryClient();
  // The dialog shows a refusal; a success is a toast (the dialog closes).
  return useApiMutation(assignShipments, {
    toast: false,
    onSuccess: (env) => {
      toastSuccess(env.message, 'Assigned');
      invalidate();
      // The couriers list counts open shipments.
      void qc.invalidateQueries({ queryKey: ['members'] });
    },
  });
}

export function useUnassignShipments() {
  const invalidate = useInvalidateShipments();
  return useApiMutation(unassignShipments, { toast: false, onSuccess: (env) => (toastSuccess(env.message, 'Unassigned'), invalidate()) });
}
