import { updateShipmentRequest, type ShipmentStatus, type UpdateShipmentRequest } from '@shiptrail/contract';
import { zodResolver } from '../../../lib/zod-resolver';

export interface CheckpointValues {
  status: ShipmentStatus;
  location: string;
  message: string;
  lat: number | '';
  long: number | '';
  recipientName: string;
  signature: string;
  photo: string;
}

export const emptyCheckpoint = (status: ShipmentStatus): CheckpointValues => ({
  status,
  location: '',
  message: '',
  lat: '',
  long: '',
  recipientName: '',
  signature: '',
  photo: '',
});

/**
 * Proof of delivery goes with Delivered only. A courier always gives it (name and signature) when marking a
 * shipment Delivered; the company may mark Delivered without it, but what it starts filling in must be whole.
 */
export const proofWanted = (v: CheckpointValues, asCourier: boolean) =>
  v.status === 'Delivered' && (asCourier || !!v.recipientName.trim() || !!v.signature || !!v.photo);

export function toUpdateBody(tid: string, v: CheckpointValues, asCourier: boolean): UpdateShipmentRequest {
  return {
    tid,
    status: v.status,
    location: v.location.trim(),
    ...(v.message.trim() ? { message: v.message.trim() } : {}),
    ...(v.lat !== '' && v.long !== '' ? { lat: v.lat, long: v.long } : {}),
    ...(proofWanted(v, asCourier)
      ? {
          // A missing signature is left out rather than sent empty, so it reads as "required".
          proof: {
            recipientName: v.recipientName.trim(),
            ...(v.signature ? { signature: v.signature } : {}),
            ...(v.photo ? { photo: v.photo } : {}),
          } as NonNullable<UpdateShipmentRequest['proof']>,
        }
      : {}),
  };
}

/** The contract's update rules on the body, with the proof's errors named as the form names its fields. */
export function validateCheckpoint(tid: string, v: CheckpointValues, asCourier: boolean): Record<string, string> {
  const errors = zodResolver(updateShipmentRequest)(toUpdateBody(tid, v, asCourier));
  const out: Record<string, string> = {};
  for (const [k, msg] of Object.entries(errors)) out[k.startsWith('proof.') ? k.slice('proof.'.length) : k] = msg;
  return out;
}
