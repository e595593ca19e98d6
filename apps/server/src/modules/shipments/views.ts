import {
  parcelFields,
  type AddressView,
  type Brand,
  type ParcelView,
  type PublicShipment,
  type ShipmentCheckpoint,
  type ShipmentStatus,
  type ShipmentView,
} from '@shiptrail/contract';
import type { CheckpointSummary, ParcelRow, ShipmentRow } from './shipments.repository.ts';

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The stored address (jsonb) as the contract's view: every field present. */
export function addressView(raw: unknown): AddressView {
  const a = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  return {
    name: str(a.name),
    company: str(a.company),
    address1: str(a.address1),
    address2: str(a.address2),
    city: str(a.city),
    state: str(a.state),
    zip: str(a.zip),
    country: str(a.country),
    lat: num(a.lat),
    long: num(a.long),
    email: str(a.email),
    phone: str(a.phone),
  };
}

export function parcelView(p: ParcelRow): ParcelView {
  return { id: p.ref, ...parcelFields(p), metadata: (p.metadata as Record<string, unknown>) ?? {} };
}

export function checkpointView(c: CheckpointSummary): ShipmentCheckpoint {
  return {
    id: c.id,
    status: c.status as ShipmentStatus,
    location: c.location,
    message: c.message,
    time: c.time.toISOString(),
    lat: c.lat,
    long: c.long,
    by: { role: c.byRole === 'courier' ? 'courier' : 'company', name: c.byName },
    proof:
      c.podRecipientName != null ? { recipientName: c.podRecipientName, hasSignature: !!c.hasSignature, hasPhoto: !!c.hasPhoto } : null,
  };
}

/**
 * The checkpoint entered last. The list is in the checkpoints' own times (a stop recorded late sits where it
 * happened), but the shipment's status is the one entered last, and lastCheckPoint agrees with the status, as
 * the original service's clients expect.
 */
export function lastEntered<T extends { id: number }>(cps: T[]): T | undefined {
  return cps.reduce<T | undefined>((last, c) => (!last || c.id > last.id ? c : last), undefined);
}

/**
 * The checkpoint that set the shipment's status: the one its lastCheckPoint names (a checkpoint sent late from a
 * phone that happened before it does not take its place, decision 120), else the one entered last.
 */
export function currentCheckpoint<T extends { id: number }>(s: ShipmentRow, cps: T[]): T | undefined {
  const id = (s.lastCheckPoint as { id?: unknown } | null)?.id;
  return (typeof id === 'number' ? cps.find((c) => c.id === id) : undefined) ?? lastEntered(cps);
}

export function shipmentView(
  s: ShipmentRow,
  parcels: ParcelRow[],
  cps: CheckpointSummary[],
  companyUid: string,
  courierUid: string | null,
): ShipmentView {
  const checkpoints = cps.map(checkpointView);
  const last = currentCheckpoint(s, cps);
  return {
    tid: s.tid,
    status: s.status as ShipmentStatus,
    courier: s.courier,
    courierEmail: s.courierEmail,
    courierUid,
    orderId: s.orderId,
    message: s.message,
    expected: s.expected?.toISOString() ?? null,
    windowFrom: s.windowFrom ?? null,
    windowTo: s.windowTo ?? null,
    origin: addressView(s.origin),
    destination: addressView(s.destination),
    parcels: parcels.map(parcelView),
    lastCheckPoint: last ? checkpointView(last) : null,
    checkpoints,
    metadata: (s.metadata as Record<string, unknown>) ?? {},
    uid: companyUid,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

/** "Santa Monica, CA 90403, US": where a parcel is, without street, names or contacts. */
export function placeLine(a: AddressView): string {
  const stateZip = [a.state, a.zip].filter(Boolean).join(' ');
  return [a.city, stateZip, a.country].filter(Boolean).join(', ');
}

const maskEmail = (email: string) => {
  const at = email.lastIndexOf('@');
  if (!email) return '';
  if (at < 1) return '***';
  const domain = email.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  return `${email[0]}***@${domain[0] ?? ''}***${dot > 0 ? domain.slice(dot) : ''}`;
};
const maskPhone = (phone: string) => {
  const d = phone.replace(/\D/g, '');
  return d.length >= 4 ? `***-***-${d.slice(-4)}` : '';
};

export function publicShipmentView(s: ShipmentRow, cps: CheckpointSummary[], brand: Brand): PublicShipment {
  const origin = addressView(s.origin);
  const destination = addressView(s.destination);
  const place = (a: AddressView) => ({ city: a.city, state: a.state, zip: a.zip, country: a.country });
  const checkpoints = cps.map((c) => ({
    status: c.status as ShipmentStatus,
    location: c.location || null,
    message: c.message,
    time: c.time.toISOString(),
    signedBy: c.podRecipientName ?? null,
    // Where the courier reported it from: the public page draws the parcel's route from these.
    lat: c.lat ?? null,
    long: c.long ?? null,
  }));
  const lastCp = currentCheckpoint(s, cps);
  const last = lastCp ? checkpoints[cps.indexOf(lastCp)] : undefined;
  return {
    kind: 'shipment',
    tid: s.tid,
    courier: 'shm',
    courierName: s.courier || brand.name,
    status: s.status as ShipmentStatus,
    origin: placeLine(origin),
    destination: placeLine(destination),
    originPlace: place(origin),
    destinationPlace: place(destination),
    expected: s.expected?.toISOString() ?? null,
    window: null,
    courierPosition: null,
    lastCheckPoint: last ? { status: last.status, location: last.location, message: last.message, time: last.time } : null,
    checkpoints,
    notify: { email: maskEmail(destination.email), phone: maskPhone(destination.phone) },
    signedBy: checkpoints.find((c) => c.signedBy)?.signedBy ?? null,
    brand,
    updatedAt: s.updatedAt.toISOString(),
    sandbox: false,
  };
}
