import {
  COURIER_REQUIRED,
  createShipmentRequest,
  editShipmentRequest,
  parcelFields,
  type AddressView,
  type CreateShipmentRequest,
  type EditShipmentRequest,
  type ParcelFields,
  type ParcelView,
  type ShipmentView,
} from '@shiptrail/contract';
import { zodResolver } from '../../../lib/zod-resolver';

// The Add New Shipment wizard and the edit form share one set of values. The values hold strings (and ''
// for an empty number box); toCreateBody/toEditBody turn them into the request, and the contract's schema
// checks that request, so the form shows the server's own messages under the same field names.

export interface AddressValues {
  name: string;
  company: string;
  address1: string;
  address2: string;
  city: string;
  state: string;
  zip: string;
  country: string;
  email: string;
  phone: string;
}

/** A parcel in the form: its own fields, '' for an empty number box. */
export type ParcelValues = ParcelFields<number | ''>;

export interface ShipmentValues {
  origin: AddressValues;
  destination: AddressValues;
  /** The assigned courier's email (a member of the company). */
  courierEmail: string;
  orderId: string;
  expected: string;
  message: string;
  /** The customer's delivery window, HH:MM ('' for none): Plan the day keeps to it (decision 118). */
  windowFrom: string;
  windowTo: string;
  parcels: ParcelValues[];
}

export const emptyAddress = (): AddressValues => ({
  name: '',
  company: '',
  address1: '',
  address2: '',
  city: '',
  state: '',
  zip: '',
  country: 'US',
  email: '',
  phone: '',
});
export const emptyParcel = (): ParcelValues => ({
  name: '',
  quantity: 1,
  length: '',
  width: '',
  height: '',
  weight: '',
  distanceUnit: 'in',
  weightUnit: 'lb',
});
export const emptyShipment = (): ShipmentValues => ({
  origin: emptyAddress(),
  destination: emptyAddress(),
  courierEmail: '',
  orderId: '',
  expected: '',
  message: '',
  windowFrom: '',
  windowTo: '',
  parcels: [emptyParcel()],
});

const addressValues = (a: AddressView): AddressValues => ({
  name: a.name,
  company: a.company,
  address1: a.address1,
  address2: a.address2,
  city: a.city,
  state: a.state,
  zip: a.zip,
  country: a.country,
  email: a.email,
  phone: a.phone,
});
const parcelValues = (p: ParcelView): ParcelValues => parcelFields(p);

/** The edit form starts from the shipment as it is. */
export const valuesOf = (s: ShipmentView): ShipmentValues => ({
  origin: addressValues(s.origin),
  destination: addressValues(s.destination),
  courierEmail: s.courierEmail,
  orderId: s.orderId,
  expected: s.expected ? s.expected.slice(0, 10) : '',
  message: s.message,
  windowFrom: s.windowFrom ?? '',
  windowTo: s.windowTo ?? '',
  parcels: s.parcels.map(parcelValues),
});

const text = (v: string) => (v.trim() === '' ? undefined : v.trim());
const num = (v: number | '') => (v === '' ? undefined : v);

function addressBody(a: AddressValues) {
  return {
    name: text(a.name),
    company: text(a.company),
    address1: a.address1.trim(),
    address2: text(a.address2),
    city: a.city.trim(),
    state: text(a.state),
    zip: a.zip.trim(),
    country: text(a.country),
    email: text(a.email),
    phone: text(a.phone),
  };
}

function parcelsBody(list: ParcelValues[]) {
  return list.map((p) => ({
    name: p.name.trim(),
    quantity: num(p.quantity),
    length: num(p.length),
    width: num(p.width),
    height: num(p.height),
    weight: num(p.weight),
    distanceUnit: text(p.distanceUnit),
    weightUnit: text(p.weightUnit),
  })) as CreateShipmentRequest['parcels'];
}

/** The courier select's choice for "nobody yet": the shipment is created unassigned (decision 098). */
export const UNASSIGNED = '__unassigned__';

/** `courierName` is the display name of the member behind courierEmail (the shipment's courier name). */
export function toCreateBody(v: ShipmentValues, courierName: string): CreateShipmentRequest {
  if (v.courierEmail === UNASSIGNED) {
    const { courier: _c, courierEmail: _e, ...rest } = toCreateBody({ ...v, courierEmail: '' }, '');
    return { ...rest, unassigned: true };
  }
  return {
    origin: addressBody(v.origin),
    destination: addressBody(v.destination),
    parcels: parcelsBody(v.parcels),
    courier: courierName.trim(),
    courierEmail: v.courierEmail.trim(),
    orderId: text(v.orderId),
    expected: text(v.expected),
    message: text(v.message),
    windowFrom: text(v.windowFrom),
    windowTo: text(v.windowTo),
  };
}

export function toEditBody(tid: string, v: ShipmentValues, courierName: string): EditShipmentRequest {
  const c = toCreateBody(v.courierEmail === UNASSIGNED ? { ...v, courierEmail: '' } : v, courierName);
  return {
    tid,
    origin: c.origin,
    destination: c.destination,
    parcels: c.parcels,
    courier: c.courier || undefined,
    courierEmail: c.courierEmail || undefined,
    orderId: v.orderId.trim(),
    expected: c.expected,
    message: v.message.trim(),
    // '' clears a window the shipment had.
    windowFrom: v.windowFrom.trim(),
    windowTo: v.windowTo.trim(),
  };
}

/** Fields of the second page: the parcels. Everything else is on the first (addresses and general). */
export const isParcelField = (key: string) => key === 'parcels' || key.startsWith('parcels.');

/**
 * Errors of the whole form, keyed as the form names its fields. The courier's name follows its email, so
 * a missing courier is reported once, on the courier select (courierEmail).
 */
export function validateShipment(v: ShipmentValues, courierName: string, mode: 'create' | 'edit' = 'create'): Record<string, string> {
  const errors =
    mode === 'create'
      ? zodResolver(createShipmentRequest)(toCreateBody(v, courierName))
      : zodResolver(editShipmentRequest)(toEditBody('x', v, courierName));
  if (errors.courier) {
    errors.courierEmail ??= errors.courier === COURIER_REQUIRED ? COURIER_REQUIRED : errors.courier;
    delete errors.courier;
  }
  if (mode === 'create' && !v.courierEmail.trim()) errors.courierEmail = COURIER_REQUIRED;
  return errors;
}

/** The errors that stop the first page (addresses and general) from moving on. */
export const pageOneErrors = (errors: Record<string, string>) =>
  Object.fromEntries(Object.entries(errors).filter(([k]) => !isParcelField(k)));
