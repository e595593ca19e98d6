// Renders sandbox journeys in each carrier's real response shape, with the carrier's own codes, so the
// production adapters parse them unchanged (shapes and codes: carrier notes §1.4, §2.4, §3.4, §4.3).
import { hashNumber, type StepKind } from './journeys.ts';

export type SandboxEvent = { kind: StepKind; time: number };
/** The carrier's promised window (epoch ms); `first` is the original promise once it was revised. */
export type SandboxPromise = { fromMs: number; toMs: number; first: { fromMs: number; toMs: number } | null };
export type Place = { city: string; state: string; zip: string };
export type Route = { origin: Place; hub: Place; destination: Place };

const US: Place[] = [
  { city: 'CHICAGO', state: 'IL', zip: '60607' },
  { city: 'DALLAS', state: 'TX', zip: '75201' },
  { city: 'ATLANTA', state: 'GA', zip: '30303' },
  { city: 'DENVER', state: 'CO', zip: '80202' },
  { city: 'SEATTLE', state: 'WA', zip: '98101' },
  { city: 'MEMPHIS', state: 'TN', zip: '38118' },
  { city: 'LOUISVILLE', state: 'KY', zip: '40213' },
  { city: 'NEWARK', state: 'NJ', zip: '07102' },
];
const CA: Place[] = [
  { city: 'TORONTO', state: 'ON', zip: 'M5V2T6' },
  { city: 'MONTREAL', state: 'QC', zip: 'H3B4W8' },
  { city: 'OTTAWA', state: 'ON', zip: 'K1P5G4' },
  { city: 'CALGARY', state: 'AB', zip: 'T2P2M5' },
  { city: 'VANCOUVER', state: 'BC', zip: 'V6B1A1' },
  { city: 'HALIFAX', state: 'NS', zip: 'B3J1S9' },
];

export function routeFor(place: number, canada: boolean): Route {
  const list = canada ? CA : US;
  const n = list.length;
  const o = place % n;
  const h = (o + 1 + (place % (n - 2))) % n;
  let d = (o + n - 1 - (place % 3)) % n;
  if (d === o) d = (o + 2) % n;
  return { origin: list[o]!, hub: list[h]!, destination: list[d]! };
}

function placeOf(kind: StepKind, r: Route): Place {
  if (kind === 'label' || kind === 'pickup') return r.origin;
  if (kind === 'arrive' || kind === 'depart') return r.hub;
  return r.destination;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
function parts(ms: number, offsetMin = 0) {
  const d = new Date(ms + offsetMin * 60_000);
  return {
    date: `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`,
    compactDate: `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`,
    time: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`,
    compactTime: `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`,
  };
}
function offsetText(min: number): string {
  const s = min < 0 ? '-' : '+';
  const a = Math.abs(min);
  return `${s}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/**
 * The service a number travels by, in each carrier's own field shape (decision 158): one of two per carrier by a bit
 * of the number's hash, so the sandbox's performance page has a service breakdown to show.
 */
const SERVICES = {
  ups: [
    { code: '003', levelCode: '003', description: 'UPS Ground' },
    { code: '002', levelCode: '002', description: 'UPS 2nd Day Air' },
  ],
  fedex: [
    { type: 'FEDEX_GROUND', description: 'FedEx Ground', shortDescription: 'FG' },
    { type: 'FEDEX_2_DAY', description: 'FedEx 2Day', shortDescription: '2D' },
  ],
  usps: ['USPS Ground Advantage<SUP>&#153;</SUP>', 'Priority Mail<SUP>&#174;</SUP>'],
  canadapost: ['Expedited Parcels', 'Xpresspost'],
} as const;
export function sandboxService<C extends keyof typeof SERVICES>(courier: C, tid: string): (typeof SERVICES)[C][number] {
  return SERVICES[courier][(hashNumber(tid) >>> 28) & 1]!;
}

// US scans are rendered at US Central time (UTC-6), Canadian ones at Eastern Standard (UTC-5).
const US_OFFSET = -360;
const CA_OFFSET = -300;
const DAY = 86_400_000;

// ---------------- UPS (status/description codes: carrier notes §1.6) ----------------
const UPS_CODES: Record<StepKind, { type: string; code: string; statusCode: string; description: string }> = {
  label: { type: 'M', code: 'MP', statusCode: '003', description: 'Shipper created a label, UPS has not received the package yet.' },
  pickup: { type: 'P', code: 'PU', statusCode: '038', description: 'Pickup Scan' },
  arrive: { type: 'I', code: 'AR', statusCode: '005', description: 'Arrived at Facility' },
  depart: { type: 'I', code: 'DP', statusCode: '005', description: 'Departed from Facility' },
  ofd: { type: 'I', code: 'OT', statusCode: '021', description: 'Out For Delivery Today' },
  attempt: {
    type: 'X',
    code: '48',
    statusCode: '022',
    description: 'The receiver was not available for delivery. We will make a second attempt.',
  },
  delivered: { type: 'D', code: 'FS', statusCode: '011', description: 'DELIVERED' },
  exception: { type: 'X', code: 'UL', statusCode: '050', description: 'The address is incomplete. We are attempting to update it.' },
};

export function renderUps(tid: string, events: SandboxEvent[], route: Route, promise: SandboxPromise | null): unknown {
  const newest = [...events].reverse();
  const activity = newest.map((e) => {
    const c = UPS_CODES[e.kind];
    const p = placeOf(e.kind, route);
    const local = parts(e.time, US_OFFSET);
    const gmt = parts(e.time);
    return {
      location: { address: { city: p.city, stateProvince: p.state, postalCode: p.zip, countryCode: 'US', country: 'US' }, slic: '0001' },
      status: { type: c.type, description: c.description, code: c.code, statusCode: c.statusCode },
      date: local.compactDate,
      time: local.compactTime,
      gmtDate: gmt.compactDate,
      gmtTime: gmt.time,
      gmtOffset: offsetText(US_OFFSET),
    };
  });
  const cur = newest[0] ? UPS_CODES[newest[0].kind] : null;
  const addr = (p: Place) => ({ city: p.city, stateProvince: p.state, postalCode: p.zip, countryCode: 'US', country: 'US' });
  return {
    trackResponse: {
      shipment: [
        {
          inquiryNumber: tid,
          package: [
            {
              trackingNumber: tid,
              service: sandboxService('ups', tid),
              ...(cur ? { currentStatus: { code: cur.statusCode, description: cur.description } } : {}),
              // SDD the original promise, RDD the rescheduled one; deliveryTime the window (carrier notes §1.4).
              deliveryDate: !promise
                ? []
                : promise.first
                  ? [
                      { type: 'SDD', date: parts(promise.first.toMs, US_OFFSET).compactDate },
                      { type: 'RDD', date: parts(promise.toMs, US_OFFSET).compactDate },
                    ]
                  : [{ type: 'SDD', date: parts(promise.toMs, US_OFFSET).compactDate }],
              ...(promise
                ? {
                    deliveryTime: {
                      type: 'EDW',
                      startTime: parts(promise.fromMs, US_OFFSET).compactTime,
                      endTime: parts(promise.toMs, US_OFFSET).compactTime,
                    },
                  }
                : {}),
              activity,
              packageAddress: [
                { type: 'ORIGIN', address: addr(route.origin) },
                { type: 'DESTINATION', address: addr(route.destination) },
              ],
              packageCount: 1,
            },
          ],
        },
      ],
    },
  };
}

/** One Track Alert event (UPS-API UPSTrackAlert.yaml, webhooks.TrackingEvent): the same scan as renderUps's activity. */
export function renderUpsPushEvent(tid: string, e: SandboxEvent, route: Route, promise: SandboxPromise | null): unknown {
  const c = UPS_CODES[e.kind];
  const p = placeOf(e.kind, route);
  const local = parts(e.time, US_OFFSET);
  const gmt = parts(e.time);
  const delivered = e.kind === 'delivered';
  return {
    trackingNumber: tid,
    localActivityDate: local.compactDate,
    localActivityTime: local.compactTime,
    activityLocation: { city: p.city, stateProvince: p.state, postalCode: p.zip, country: 'US' },
    activityStatus: { type: c.type, code: c.code, description: c.description, descriptionCode: c.statusCode },
    scheduledDeliveryDate: promise === null ? '' : parts(promise.toMs, US_OFFSET).compactDate,
    actualDeliveryDate: delivered ? local.compactDate : '',
    actualDeliveryTime: delivered ? local.compactTime : '',
    gmtActivityDate: gmt.compactDate,
    gmtActivityTime: gmt.compactTime,
    gmtOffset: offsetText(US_OFFSET).replace(':', '.'),
  };
}

export function upsNotFound(tid: string): unknown {
  return {
    trackResponse: { shipment: [{ inquiryNumber: tid, warnings: [{ code: 'TW0001', message: 'Tracking Information Not Found' }] }] },
  };
}

// ---------------- USPS (Pub 199 event codes, statusCategory: carrier notes §2.7, §5.5) ----------------
const USPS_CODES: Record<StepKind, { code: string; type: string; category: string }> = {
  label: { code: 'MA', type: 'Pre-Shipment, USPS Awaiting Item', category: 'Pre-Shipment' },
  pickup: { code: '03', type: 'USPS in possession of item', category: 'Accepted' },
  arrive: { code: '10', type: 'Arrived at USPS Regional Facility', category: 'Moving Through Network' },
  depart: { code: 'T1', type: 'Departed USPS Regional Facility', category: 'Moving Through Network' },
  ofd: { code: 'OF', type: 'Out for Delivery', category: 'Out for Delivery' },
  attempt: { code: '02', type: 'Notice Left (No Authorized Recipient Available)', category: 'Delivery Attempt' },
  delivered: { code: '01', type: 'Delivered, Front Door/Porch', category: 'Delivered' },
  exception: { code: '05', type: 'Undeliverable as Addressed', category: 'Alert' },
};

export function renderUsps(tid: string, events: SandboxEvent[], route: Route, promise: SandboxPromise | null): unknown {
  const newest = [...events].reverse();
  const latest = newest[0] ? USPS_CODES[newest[0].kind] : null;
  return {
    trackingNumber: tid,
    mailClass: sandboxService('usps', tid),
    originCity: route.origin.city,
    originState: route.origin.state,
    originZIP: route.origin.zip,
    destinationCity: route.destination.city,
    destinationState: route.destination.state,
    destinationZIP: route.destination.zip,
    emailEnabled: 'true',
    ...(promise === null
      ? {}
      : {
          expectedDeliveryTimeStamp: `${parts(promise.toMs, US_OFFSET).date}T00:00:00`,
          predictedDeliveryWindowStartTime: parts(promise.fromMs, US_OFFSET).time,
          predictedDeliveryWindowEndTime: parts(promise.toMs, US_OFFSET).time,
        }),
    status: latest?.type ?? '',
    statusCategory: latest?.category ?? '',
    trackingEvents: newest.map((e) => {
      const c = USPS_CODES[e.kind];
      const p = placeOf(e.kind, route);
      const local = parts(e.time, US_OFFSET);
      const gmt = parts(e.time);
      return {
        eventType: c.type,
        eventTimestamp: `${local.date}T${local.time}`,
        GMTTimestamp: `${gmt.date}T${gmt.time}Z`,
        GMTOffset: offsetText(US_OFFSET),
        eventCountry: null,
        eventCity: p.city,
        eventState: p.state,
        eventZIP: p.zip,
        firm: null,
        name: null,
        authorizedAgent: 'false',
        eventCode: c.code,
      };
    }),
  };
}

export function uspsNotFound(v3r2: boolean): unknown {
  return v3r2
    ? {
        apiVersion: '/tracking/v3r2',
        error: {
          code: '404',
          message: '',
          errors: [
            { title: '', detail: 'A status update is not yet available for your package. (sandbox)', status: '404', code: '150006' },
          ],
        },
      }
    : {
        apiVersion: '/tracking/v3',
        error: {
          code: '400',
          message: '12: A status update is not yet available on your package. (sandbox)',
          errors: [{ title: '12: A status update is not yet available on your package. (sandbox)', detail: '', code: '150001' }],
        },
      };
}

// ---------------- FedEx (Tracking Status Codes: carrier notes §3.7) ----------------
const FEDEX_CODES: Record<
  StepKind,
  { code: string; derived: string; description: string; exceptionCode?: string; exceptionDescription?: string }
> = {
  label: { code: 'OC', derived: 'IN', description: 'Shipment information sent to FedEx' },
  pickup: { code: 'PU', derived: 'PU', description: 'Picked up' },
  arrive: { code: 'AR', derived: 'IT', description: 'Arrived at FedEx location' },
  depart: { code: 'DP', derived: 'IT', description: 'Departed FedEx location' },
  ofd: { code: 'OD', derived: 'OD', description: 'On FedEx vehicle for delivery' },
  attempt: {
    code: 'DE',
    derived: 'DE',
    description: 'Delivery exception',
    exceptionCode: '007',
    exceptionDescription: 'Customer not available or business closed',
  },
  delivered: { code: 'DL', derived: 'DL', description: 'Delivered' },
  exception: {
    code: 'SE',
    derived: 'SE',
    description: 'Shipment exception',
    exceptionCode: 'A05',
    exceptionDescription: 'Incorrect address',
  },
};

export function fedexTrackResult(tid: string, events: SandboxEvent[], route: Route, promise: SandboxPromise | null): unknown {
  const newest = [...events].reverse();
  const latest = newest[0] ? FEDEX_CODES[newest[0].kind] : null;
  const addr = (p: Place) => ({
    city: p.city,
    stateOrProvinceCode: p.state,
    postalCode: p.zip,
    countryCode: 'US',
    residential: false,
    countryName: 'United States',
  });
  const iso = (ms: number) => {
    const l = parts(ms, US_OFFSET);
    return `${l.date}T${l.time}${offsetText(US_OFFSET)}`;
  };
  return {
    trackingNumber: tid,
    trackResults: [
      {
        trackingNumberInfo: { trackingNumber: tid, trackingNumberUniqueId: `sandbox~${tid}~FX`, carrierCode: 'FDXE' },
        serviceDetail: sandboxService('fedex', tid),
        shipperInformation: { address: addr(route.origin) },
        recipientInformation: { address: addr(route.destination) },
        latestStatusDetail: latest
          ? {
              code: latest.code,
              derivedCode: latest.derived,
              statusByLocale: latest.description,
              description: latest.description,
              scanLocation: addr(placeOf(newest[0]!.kind, route)),
              ...(latest.exceptionCode
                ? { ancillaryDetails: [{ reason: latest.exceptionCode, reasonDescription: latest.exceptionDescription }] }
                : {}),
            }
          : undefined,
        dateAndTimes:
          promise === null
            ? []
            : [{ type: 'ESTIMATED_DELIVERY', dateTime: `${parts(promise.toMs, US_OFFSET).date}T00:00:00${offsetText(US_OFFSET)}` }],
        estimatedDeliveryTimeWindow: { window: promise === null ? {} : { begins: iso(promise.fromMs), ends: iso(promise.toMs) } },
        scanEvents: newest.map((e) => {
          const c = FEDEX_CODES[e.kind];
          return {
            date: iso(e.time),
            eventType: c.code,
            eventDescription: c.description,
            exceptionCode: c.exceptionCode ?? '',
            exceptionDescription: c.exceptionDescription ?? '',
            scanLocation: addr(placeOf(e.kind, route)),
            derivedStatusCode: c.derived,
          };
        }),
      },
    ],
  };
}

export function fedexNotFound(tid: string): unknown {
  return {
    trackingNumber: tid,
    trackResults: [
      {
        trackingNumberInfo: { trackingNumber: tid, trackingNumberUniqueId: '', carrierCode: '' },
        error: {
          code: 'TRACKING.TRACKINGNUMBER.NOTFOUND',
          message: 'Tracking number cannot be found. Please correct the tracking number and try again.',
        },
      },
    ],
  };
}

// ---------------- Canada Post (event identifiers: carrier notes §4.7, §5.6) ----------------
const CP_CODES: Record<StepKind, { id: string; description: string }> = {
  label: { id: '3000', description: 'Electronic information submitted by shipper' },
  pickup: { id: '2300', description: 'Item picked up by Canada Post' },
  arrive: { id: '0100', description: 'Item processed at postal facility' },
  depart: { id: '0100', description: 'Item in transit to the delivery facility' },
  ofd: { id: '0174', description: 'Item out for delivery' },
  attempt: { id: '1479', description: 'Attempted delivery. Notice card left indicating where item can be picked up.' },
  delivered: { id: '1496', description: 'Item successfully delivered' },
  exception: { id: '0173', description: 'Customer addressing error found; attempting to correct. Possible delay' },
};

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function renderCanadaPost(tid: string, events: SandboxEvent[], route: Route, promise: SandboxPromise | null): string {
  const newest = [...events].reverse();
  const occ = newest
    .map((e) => {
      const c = CP_CODES[e.kind];
      const p = placeOf(e.kind, route);
      const l = parts(e.time, CA_OFFSET);
      return `<occurrence><event-identifier>${c.id}</event-identifier><event-date>${l.date}</event-date><event-time>${l.time}</event-time><event-time-zone>EST</event-time-zone><event-description>${xmlEscape(c.description)}</event-description><signatory-name/><event-site>${p.city}</event-site><event-province>${p.state}</event-province><event-retail-location-id/><event-retail-name/></occurrence>`;
    })
    .join('');
  // expected-delivery-date the original promise, changed-expected-date the revised one (carrier notes §4.3).
  const expected = promise === null ? '' : parts((promise.first ?? promise).toMs, CA_OFFSET).date;
  const changed = promise?.first ? parts(promise.toMs, CA_OFFSET).date : '';
  return `<?xml version="1.0" encoding="UTF-8"?><tracking-detail xmlns="http://www.canadapost.ca/ws/track-v2"><pin>${xmlEscape(tid)}</pin><active-exists>1</active-exists><archive-exists/>${changed ? `<changed-expected-date>${changed}</changed-expected-date>` : '<changed-expected-date/>'}<destination-postal-id>${route.destination.zip}</destination-postal-id><expected-delivery-date>${expected}</expected-delivery-date><service-name>${sandboxService('canadapost', tid)}</service-name><signature-image-exists>false</signature-image-exists><suppress-signature>false</suppress-signature><significant-events>${occ}</significant-events></tracking-detail>`;
}

export function canadaPostMessage(code: string, description: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><messages xmlns="http://www.canadapost.ca/ws/messages"><message><code>${code}</code><description>${xmlEscape(description)}</description></message></messages>`;
}

export { DAY };
