import type { TrackingView, UpdateTrackingRequest } from '@shiptrail/contract';
import { useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { trackingsKey } from './get-trackings';

/** What the edit form holds (the tracking number is shown, not edited). */
export interface EditTrackingValues {
  courier: string;
  title: string;
  orderId: string;
  customer: string;
  notify: { email: string; phone: string };
  note: string;
}

export function editValuesOf(t: TrackingView): EditTrackingValues {
  return {
    courier: t.courier,
    title: t.title,
    orderId: t.orderId,
    customer: t.customer,
    notify: { email: t.notify.email, phone: t.notify.phone },
    note: t.note,
  };
}

/**
 * The body for an edit: every detail is sent (trimmed, '' clears it; notify always carries both contacts, as
 * the server replaces them together). The courier only goes when it changed, since a new courier resets
 * the tracking to Pending and drops its checkpoints.
 */
export function updateBodyOf(t: TrackingView, v: EditTrackingValues): UpdateTrackingRequest {
  const courier = v.courier.trim();
  return {
    tid: t.tid,
    ...(courier && courier !== t.courier ? { courier } : {}),
    title: v.title.trim(),
    orderId: v.orderId.trim(),
    customer: v.customer.trim(),
    notify: { email: v.notify.email.trim(), phone: v.notify.phone.trim() },
    note: v.note.trim(),
  };
}

/** PUT /v1/trackings/update: the tid picks the tracking; fields left out are kept, '' clears a field. */
export const updateTracking = (body: UpdateTrackingRequest) => request<TrackingView>('/v1/trackings/update', { method: 'PUT', body });

export function useUpdateTracking() {
  const qc = useQueryClient();
  return useApiMutation(updateTracking, {
    toast: false,
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: trackingsKey });
    },
  });
}
