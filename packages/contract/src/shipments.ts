import { z } from 'zod';
import { MSG } from './messages.ts';
import { LIMITS, TRACKING_STATUSES } from './constants.ts';
import {
  afterNumberField,
  emailField,
  listOf,
  optionalEmailField,
  optionalString,
  optionalUsPhone,
  pageSizeField,
  requiredString,
  requiredText,
} from './common.ts';
import { geoSchema } from './members.ts';
import { checkpointSchema } from './checkpoints.ts';

// A company's own shipments ("SHM System"): the calls the original SDK makes (sendShipment → create,
// updateShipment → update), the company's list and edit, the courier's list, and the views.

export const SHIPMENT_STATUSES = TRACKING_STATUSES;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];

// ------------------------------------------------------------------ SHM numbers
/**
 * Shiptrail's own tracking numbers: "SHM", 11 random digits and a Luhn check digit (15 characters, the shape
 * of the original service's examples). The check digit catches a mistyped digit and most swapped pairs.
 */
export const SHM_PREFIX = 'SHM';
export const SHM_PATTERN = /^SHM\d{12}$/;

export function luhnCheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** SHM + 11 digits → the full number with its check digit. */
export const shmNumber = (elevenDigits: string) => `${SHM_PREFIX}${elevenDigits}${luhnCheckDigit(elevenDigits)}`;

/** Shaped like an SHM number (upper case, separators removed by the caller). */
export const looksLikeShm = (tid: string) => SHM_PATTERN.test(tid);
export function shmCheckDigitValid(tid: string): boolean {
  if (!looksLikeShm(tid)) return false;
  const body = tid.slice(3, 14);
  return luhnCheckDigit(body) === Number(tid[14]);
}

// ------------------------------------------------------------------ inputs
const latitude = z
  .number({ error: 'Latitude must be a number' })
  .min(-90, 'Latitude is between -90 and 90')
  .max(90, 'Latitude is between -90 and 90');
const longitude = z
  .number({ error: 'Longitude must be a number' })
  .min(-180, 'Longitude is between -180 and 180')
  .max(180, 'Longitude is between -180 and 180');

/** Free-form metadata as the original API took it: an object of at most 20 keys, small. */
export const METADATA_MAX_KEYS = 20;
export const METADATA_MAX_CHARS = 4000;
const metadata = z
  .record(z.string().max(100), z.unknown())
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, `metadata has at most ${METADATA_MAX_KEYS} keys`)
  .refine((m) => JSON.stringify(m).length <= METADATA_MAX_CHARS, `metadata is at most ${METADATA_MAX_CHARS} characters of JSON`)
  .default({});

/** An origin or destination address (the original SDK's address object). `side` names it in the messages. */
export const addressInput = (side: 'Origin' | 'Destination') =>
  z.object(
    {
      name: optionalString(200),
      company: optionalString(200),
      address1: requiredString(`${side} address1 is required`, 300),
      address2: optionalString(300),
      city: requiredString(`${side} city is required`, 120),
      state: optionalString(60),
      zip: requiredString(`${side} zip is required`, 20),
      country: optionalString(60),
      lat: latitude.optional(),
      long: longitude.optional(),
      email: optionalEmailField(MSG.emailInvalid),
      phone: optionalUsPhone(MSG.phoneInvalid),
    },
    // A missing address reads as its first required field.
    { error: (issue) => (issue.input === undefined ? `${side} address1 is required` : `${side} must be an address object`) },
  );
export type AddressInput = z.input<ReturnType<typeof addressInput>>;

const dimension = (name: string) =>
  z
    .number({ error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be a number`) })
    .min(0, `${name} cannot be negative`)
    .max(100_000);

export const parcelInput = z.object({
  id: optionalString(100),
  quantity: z
    .number({ error: 'Quantity must be a number' })
    .int('Quantity must be a whole number')
    .min(1, 'Quantity is at least 1')
    .max(10_000)
    .default(1),
  name: requiredString('Parcel name is required', 200),
  length: dimension('Length'),
  width: dimension('Width'),
  height: dimension('Height'),
  weight: dimension('Weight'),
  distanceUnit: optionalString(10).default('in'),
  weightUnit: optionalString(10).default('lb'),
  metadata,
});
export type ParcelInput = z.input<typeof parcelInput>;
export const MAX_PARCELS = 50;

/** Any date the server can read (the original took free text); stored as a time. */
const dateText = (message: string) =>
  z
    .string()
    .trim()
    .max(64)
    .refine((s) => s === '' || !Number.isNaN(Date.parse(s)), message)
    .transform((s) => (s === '' ? undefined : new Date(s).toISOString()))
    .optional();

/** A local time of day, HH:MM on a 24-hour clock (a delivery window, a shift). */
export const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;
export const timeOfDay = () => z.string().trim().regex(TIME_OF_DAY, MSG.planTimeFormat);
/** '' or null clears a stored window on edit; left out keeps it. */
const windowTime = () => z.union([z.literal(''), timeOfDay()]).optional();
const windowInOrder = (v: { windowFrom?: string; windowTo?: string }) => !v.windowFrom || !v.windowTo || v.windowFrom < v.windowTo;

const statusField = (fallback: ShipmentStatus) =>
  z.enum(SHIPMENT_STATUSES, { error: `Unknown status: use ${SHIPMENT_STATUSES.join(', ')}` }).default(fallback);

export const COURIER_REQUIRED = 'Courier is required.';

/**
 * POST /v1/shipment/create (the SDK's sendShipment): exactly what its schema accepts. `courierEmail` picks
 * the assigned member when it is one of the company's couriers; otherwise the shipment keeps the free-text
 * courier and nobody is assigned (the SDK's README uses an outside courier's name).
 */
const isMissing = (v: unknown) => typeof v !== 'string' || v.trim() === '';

export const createShipmentRequest = z
  .object({
    origin: addressInput('Origin'),
    destination: addressInput('Destination'),
    parcels: z.array(parcelInput).max(MAX_PARCELS, `A shipment has at most ${MAX_PARCELS} parcels`).default([]),
    expected: dateText('Expected must be a date, e.g. 2019-02-15T14:12:16Z'),
    message: optionalString(2000),
    orderId: optionalString(100),
    status: statusField('InfoReceived'),
    /**
     * `true` creates the shipment with nobody assigned, to be assigned later (POST /v1/shipment/assign);
     * `courier` and `courierEmail` may then be left out (decision 098). Without it both are required, as in
     * the original API.
     */
    unassigned: z.boolean({ error: 'unassigned must be true or false' }).optional(),
    courier: requiredText(COURIER_REQUIRED).trim().max(200).optional(),
    courierEmail: requiredText(COURIER_REQUIRED).pipe(emailField).optional(),
    metadata,
    /** The customer's delivery window, local times of the company's time zone (Plan the day keeps to it). */
    windowFrom: windowTime(),
    windowTo: windowTime(),
  })
  .refine(windowInOrder, { message: MSG.planWindowOrder, path: ['windowTo'] })
  // Checked even when other fields fail, so the wizard shows every missing part at once.
  .refine((v) => v.unassigned === true || !isMissing(v.courier), { message: COURIER_REQUIRED, path: ['courier'], when: () => true })
  .refine((v) => v.unassigned === true || !isMissing(v.courierEmail), {
    message: COURIER_REQUIRED,
    path: ['courierEmail'],
    when: () => true,
  });
export type CreateShipmentRequest = z.input<typeof createShipmentRequest>;

// ------------------------------------------------------------------ checkpoints and proof of delivery
/** Caps on proof of delivery, checked on the decoded bytes. A photo over PHOTO_MAX_PIXELS a side is downscaled. */
export const POD_LIMITS = {
  signatureMaxBytes: 200 * 1024,
  photoMaxBytes: 6 * 1024 * 1024,
  /** After downscaling, what is stored. */
  photoStoredMaxBytes: 600 * 1024,
  photoMaxSide: 1280,
  /** Read from the image's header before anything decodes it (decision 107). */
  photoMaxPixels: 50_000_000,
  signatureMaxWidth: 2400,
  signatureMaxHeight: 1600,
  /** The request body of an update with a photo (base64 is 4/3 of the bytes). */
  bodyMaxBytes: 9 * 1024 * 1024,
} as const;

const dataUrl = (what: string, types: string, maxBytes: number) =>
  z
    .string()
    .trim()
    .max(Math.ceil((maxBytes * 4) / 3) + 100, `The ${what} is too large (at most ${Math.round(maxBytes / 1024)} KB)`)
    .regex(
      new RegExp(`^data:image/(${types});base64,[A-Za-z0-9+/=\\s]+$`),
      `The ${what} must be a ${types.replace(/\|/g, ' or ').toUpperCase()} image as a data URL (data:image/...;base64,...)`,
    );

export const proofInput = z.object({
  recipientName: requiredString('Recipient name is required', 200),
  /** The signature drawn on the screen: a PNG data URL. */
  signature: requiredText('Signature is required').pipe(dataUrl('signature', 'png', POD_LIMITS.signatureMaxBytes)),
  /** Optional photo from the phone's camera: JPEG, PNG or WebP data URL; downscaled before it is stored. */
  photo: dataUrl('photo', 'jpeg|png|webp', POD_LIMITS.photoMaxBytes).optional(),
});
export type ProofInput = z.input<typeof proofInput>;

/** How far a checkpoint's occurredAt may be from the server's clock (decision 120). */
export const OCCURRED_AT_LIMITS = {
  /** A phone's clock a little ahead of the server's is not a reason to lose a delivery. */
  maxSkewMs: 5 * 60_000,
  maxAgeMs: 7 * 24 * 3_600_000,
} as const;

/**
 * POST /v1/shipment/update (the SDK's updateShipment): adds a checkpoint and sets the status (any status, in
 * any order). `time` is ISO-8601 with an offset (2019-01-19T15:04:08-07:00); left out, it is now. `proof` is
 * accepted only with status Delivered.
 */
export const updateShipmentRequest = z
  .object({
    tid: requiredString(MSG.trackingNumberRequired, 64),
    status: statusField('InTransit'),
    location: requiredString('Location is required', 300),
    lat: latitude.optional(),
    long: longitude.optional(),
    time: z
      .string()
      .trim()
      .pipe(z.iso.datetime({ offset: true, error: 'Time must be a date and time with its UTC offset, e.g. 2019-01-19T15:04:08-07:00' }))
      .optional(),
    /**
     * When the courier acted, for a checkpoint recorded on a phone that was offline and sent later (decision 120):
     * at most OCCURRED_AT_LIMITS.maxSkewMs ahead of the server's clock and at most maxAgeMs old.
     */
    occurredAt: z
      .string()
      .trim()
      .pipe(z.iso.datetime({ offset: true, error: 'occurredAt must be a date and time with its UTC offset, e.g. 2019-01-19T15:04:08Z' }))
      .optional(),
    message: optionalString(500),
    proof: proofInput.optional(),
  })
  .refine((v) => !(v.time && v.occurredAt), { message: MSG.occurredAtWithTime, path: ['occurredAt'], when: () => true })
  .refine((v) => !v.proof || v.status === 'Delivered', {
    message: 'Proof of delivery goes with the Delivered status',
    path: ['proof'],
    when: () => true,
  });
export type UpdateShipmentRequest = z.input<typeof updateShipmentRequest>;

/**
 * POST /v1/shipment/edit: a shipment's addresses, parcels, courier, order id, expected date and note. Fields left
 * out are kept; an address or the parcels list given replaces the stored one. The status changes through
 * update (a checkpoint), not here.
 */
export const editShipmentRequest = z
  .object({
    tid: requiredString(MSG.trackingNumberRequired, 64),
    origin: addressInput('Origin').optional(),
    destination: addressInput('Destination').optional(),
    parcels: z.array(parcelInput).max(MAX_PARCELS, `A shipment has at most ${MAX_PARCELS} parcels`).optional(),
    courier: optionalString(200),
    courierEmail: z.string().pipe(emailField).optional(),
    orderId: optionalString(100),
    expected: dateText('Expected must be a date, e.g. 2019-02-15T14:12:16Z'),
    message: optionalString(2000),
    windowFrom: windowTime(),
    windowTo: windowTime(),
  })
  .refine(windowInOrder, { message: MSG.planWindowOrder, path: ['windowTo'] });
export type EditShipmentRequest = z.input<typeof editShipmentRequest>;

/**
 * POST /v1/shipment/getshipments (the company) and /getassigned (a courier: only what is assigned to them):
 * newest first, keyset paging with lastTid as for trackings, filters by status and courier email.
 */
export const listShipmentsRequest = z.object({
  numRecords: pageSizeField(LIMITS.maxTrackingsPerPage, LIMITS.trackingsPerPage),
  lastTid: afterNumberField(),
  status: listOf(z.enum(SHIPMENT_STATUSES, { error: `Unknown status: use ${SHIPMENT_STATUSES.join(', ')}` })),
  /** Courier emails (the assigned member's or the free-text courier's). */
  courier: listOf(z.string().max(254)),
  v: z.string().optional(),
});
export type ListShipmentsRequest = z.input<typeof listShipmentsRequest>;

/** How many shipments one assign or unassign call may change. */
export const ASSIGN_MAX = 500;
const tidList = listOf(z.string().max(64)).pipe(
  z.array(z.string()).min(1, 'Choose at least one shipment').max(ASSIGN_MAX, `At most ${ASSIGN_MAX} shipments at once`),
);

/**
 * POST /v1/shipment/assign (the company): give every listed shipment to one of the company's couriers, all or
 * nothing: an unknown tid or a courier who is not the company's changes nothing.
 */
export const assignShipmentsRequest = z.object({
  tids: tidList,
  courierEmail: requiredText(MSG.courierRequiredForAssign).pipe(emailField),
});
export type AssignShipmentsRequest = z.input<typeof assignShipmentsRequest>;

/** POST /v1/shipment/unassign (the company): take the listed shipments from their courier, all or nothing. */
export const unassignShipmentsRequest = z.object({ tids: tidList });
export type UnassignShipmentsRequest = z.input<typeof unassignShipmentsRequest>;

/** Statuses a shipment is still open in: the map shows these unless asked for others. */
export const OPEN_SHIPMENT_STATUSES = SHIPMENT_STATUSES.filter((s) => s !== 'Delivered' && s !== 'Expired');
export const MARKERS_PAGE_MAX = 5000;

/**
 * POST /v1/shipment/markers (the company; a courier gets theirs): the map's light list, every shipment in the
 * given statuses (open ones by default), paged by tid: ask again with `afterTid` = the answer's `nextTid`.
 */
export const shipmentMarkersRequest = z.object({
  status: listOf(z.enum(SHIPMENT_STATUSES, { error: `Unknown status: use ${SHIPMENT_STATUSES.join(', ')}` })),
  afterTid: afterNumberField(),
  numRecords: pageSizeField(MARKERS_PAGE_MAX, MARKERS_PAGE_MAX),
});
export type ShipmentMarkersRequest = z.input<typeof shipmentMarkersRequest>;

const point = z.object({ lat: z.number(), long: z.number() }).nullable();
export const shipmentMarkerSchema = z.object({
  tid: z.string(),
  status: z.enum(SHIPMENT_STATUSES),
  courier: z.string(),
  origin: point,
  /** Where the last checkpoint that had a position was reported. */
  position: point,
  destination: point,
  /** "City, ST" of each end, for the popup. */
  originCity: z.string(),
  destinationCity: z.string(),
});
export type ShipmentMarker = z.infer<typeof shipmentMarkerSchema>;
export const shipmentMarkersSchema = z.object({
  markers: z.array(shipmentMarkerSchema),
  /** The next page starts after this tid; null on the last page. */
  nextTid: z.string().nullable(),
});
export type ShipmentMarkers = z.infer<typeof shipmentMarkersSchema>;

/** A company's logo upload: checked on the decoded bytes and re-encoded (the proof photo's rules). */
export const LOGO_LIMITS = { maxBytes: 2 * 1024 * 1024, maxSide: 512, maxInputPixels: 25_000_000 } as const;
export const logoUploadRequest = z.object({
  image: requiredText(MSG.logoRequired)
    .trim()
    .min(1, MSG.logoRequired)
    .max(Math.ceil((LOGO_LIMITS.maxBytes * 4) / 3) + 100, `The logo is too large (at most ${LOGO_LIMITS.maxBytes / 1024 / 1024} MB)`)
    .regex(/^data:image\/(png|jpeg);base64,[A-Za-z0-9+/=\s]+$/, MSG.logoUnreadable),
});
export type LogoUploadRequest = z.input<typeof logoUploadRequest>;
/** The logo's address ('' when none): the brand's logo and the profile's image. */
export const logoViewSchema = z.object({ logo: z.string() });

/** GET /v1/shipment/labels?tids=SHM…,SHM…: one 4x6 in label per shipment, one PDF. */
export const labelsQuery = z.object({
  tids: listOf(z.string().max(64)).pipe(z.array(z.string()).min(1, 'Choose at least one shipment').max(100, 'At most 100 labels at once')),
});

/** GET /v1/shipment/proof/{tid}/{checkpointId}: the images of a proof of delivery. */
export const proofParams = z.object({ tid: z.string().max(64), checkpointId: z.coerce.number().int().positive() });

// ------------------------------------------------------------------ views
export const addressViewSchema = z.object({
  name: z.string(),
  company: z.string(),
  address1: z.string(),
  address2: z.string(),
  city: z.string(),
  state: z.string(),
  zip: z.string(),
  country: z.string(),
  lat: z.number().nullable(),
  long: z.number().nullable(),
  email: z.string(),
  phone: z.string(),
});
export type AddressView = z.infer<typeof addressViewSchema>;

export const parcelViewSchema = z.object({
  id: z.string(),
  quantity: z.number(),
  name: z.string(),
  length: z.number(),
  width: z.number(),
  height: z.number(),
  weight: z.number(),
  distanceUnit: z.string(),
  weightUnit: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});
export type ParcelView = z.infer<typeof parcelViewSchema>;

/** A parcel's own fields (what it is, how many, its size and weight); `N` is how a number is held ('' in a form). */
export interface ParcelFields<N = number> {
  name: string;
  quantity: N;
  length: N;
  width: N;
  height: N;
  weight: N;
  distanceUnit: string;
  weightUnit: string;
}

/**
 * The one list of a parcel's own fields, for every mapping between a request, the stored row, the view and the
 * web form (a field added here reaches all of them). Units not given are inches and pounds.
 */
export function parcelFields<N>(
  p: Omit<ParcelFields<N>, 'distanceUnit' | 'weightUnit'> & { distanceUnit?: string; weightUnit?: string },
): ParcelFields<N> {
  return {
    name: p.name,
    quantity: p.quantity,
    length: p.length,
    width: p.width,
    height: p.height,
    weight: p.weight,
    distanceUnit: p.distanceUnit ?? 'in',
    weightUnit: p.weightUnit ?? 'lb',
  };
}

export const shipmentCheckpointSchema = z.object({
  /** Id of the checkpoint (for the proof images). */
  id: z.number(),
  status: z.enum(SHIPMENT_STATUSES),
  location: z.string(),
  message: z.string(),
  time: z.string(),
  lat: z.number().nullable(),
  long: z.number().nullable(),
  /** Who added it: the company ('company') or a courier ('courier'), and their name. */
  by: z.object({ role: z.enum(['company', 'courier']), name: z.string() }),
  /** Proof of delivery, when one was captured: the images come from GET /v1/shipment/proof/{tid}/{id}. */
  proof: z.object({ recipientName: z.string(), hasSignature: z.boolean(), hasPhoto: z.boolean() }).nullable(),
});
export type ShipmentCheckpoint = z.infer<typeof shipmentCheckpointSchema>;

export const shipmentViewSchema = z.object({
  tid: z.string(),
  status: z.enum(SHIPMENT_STATUSES),
  /** The courier's name as given (for an assigned member: their name at assignment). */
  courier: z.string(),
  courierEmail: z.string(),
  /** The assigned member's uid; null when the courier is not one of the company's members. */
  courierUid: z.string().nullable(),
  orderId: z.string(),
  /** The note. */
  message: z.string(),
  expected: z.string().nullable(),
  /** The customer's delivery window (HH:MM, the company's time zone), null when none. */
  windowFrom: z.string().nullable(),
  windowTo: z.string().nullable(),
  origin: addressViewSchema,
  destination: addressViewSchema,
  parcels: z.array(parcelViewSchema),
  lastCheckPoint: shipmentCheckpointSchema.nullable(),
  /** Newest first. */
  checkpoints: z.array(shipmentCheckpointSchema),
  metadata: z.record(z.string(), z.unknown()),
  /** The company's public id: the public page is /track/{uid}/{tid}. */
  uid: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ShipmentView = z.infer<typeof shipmentViewSchema>;
export const shipmentListSchema = z.array(shipmentViewSchema);

export const createShipmentResponse = shipmentViewSchema.extend({ warning: z.string().optional() });

export const proofViewSchema = z.object({
  recipientName: z.string(),
  /** data:image/png;base64,... */
  signature: z.string().nullable(),
  /** data:image/jpeg;base64,... (downscaled), or null. */
  photo: z.string().nullable(),
});
export type ProofView = z.infer<typeof proofViewSchema>;

/** How a company shows itself to its customers on the public page and in their mails. */
export const brandSchema = z.object({
  name: z.string(),
  /** An image URL, '' when none. */
  logo: z.string(),
  /** CSS colour of the company's theme. */
  color: z.string(),
  url: z.string(),
});
export type Brand = z.infer<typeof brandSchema>;

const publicPlace = z.object({ city: z.string(), state: z.string(), zip: z.string(), country: z.string() });
/**
 * GET /v1/track/{uid}_{tid} for an SHM number: no street addresses, names, contacts or notes; the places are
 * city, state, zip and country; the signer's name shows on the Delivered checkpoint.
 */
export const publicShipmentSchema = z.object({
  kind: z.literal('shipment'),
  tid: z.string(),
  courier: z.literal('shm'),
  courierName: z.string(),
  status: z.enum(SHIPMENT_STATUSES),
  origin: z.string(),
  destination: z.string(),
  originPlace: publicPlace,
  destinationPlace: publicPlace,
  expected: z.string().nullable(),
  lastCheckPoint: checkpointSchema.nullable(),
  checkpoints: z.array(
    checkpointSchema.extend({ signedBy: z.string().nullable(), lat: z.number().nullable(), long: z.number().nullable() }),
  ),
  notify: z.object({ email: z.string(), phone: z.string() }),
  signedBy: z.string().nullable(),
  brand: brandSchema,
  /** When the day's plan expects the courier (ISO-8601), while the shipment is open and planned; else null. */
  window: z.object({ from: z.string(), to: z.string() }).nullable(),
  /**
   * While the shipment is Out For Delivery: where its courier last reported being (ISO-8601 `at`), when that was
   * in the last few minutes; else null. Nothing of the courier's other stops (decision 128).
   */
  courierPosition: z.object({ lat: z.number(), lng: z.number(), at: z.string() }).nullable(),
  updatedAt: z.string(),
  sandbox: z.literal(false),
});
export type PublicShipment = z.infer<typeof publicShipmentSchema>;

export const positionViewSchema = geoSchema;

/** The primary colour of each theme (A to H), for a company's branded page and mails (same as the web themes). */
export const THEME_PRIMARY_COLORS = {
  A: '#364fc7',
  B: '#099268',
  C: '#6741d9',
  D: '#1971c2',
  E: '#9c36b5',
  F: '#d9480f',
  G: '#2b8a3e',
  H: '#343a40',
} as const;

/**
 * POST /v1/shipment/today (a courier): the courier's day. `since` is the start of the courier's day, the
 * phone's local midnight as ISO-8601 with its offset; left out, midnight UTC. `stops` are the courier's open
 * shipments (not Delivered or Expired), oldest first: the order they were handed out. `done` counts the
 * shipments the courier marked Delivered since then, `failed` the failed attempts they recorded.
 */
export const courierDayRequest = z.object({
  since: z
    .string()
    .trim()
    .pipe(z.iso.datetime({ offset: true, error: 'since must be a date and time with its UTC offset, e.g. 2026-11-26T00:00:00-06:00' }))
    .optional(),
});
export type CourierDayRequest = z.input<typeof courierDayRequest>;
export const courierDaySchema = z.object({
  since: z.string(),
  /** In the order of today's plan when there is one (planned stops first), else oldest first. */
  stops: shipmentListSchema,
  /** Today's planned times of the stops above, by tid (empty without a plan). */
  planned: z.array(
    z.object({ tid: z.string(), position: z.number().int(), eta: z.string(), windowFrom: z.string(), windowTo: z.string() }),
  ),
  done: z.number().int(),
  failed: z.number().int(),
});
export type CourierDay = z.infer<typeof courierDaySchema>;
