import type { FastifyInstance } from 'fastify';
import { call, signUp } from '../helpers.ts';

let n = 0;
/** A company account with a name (shown to its customers). */
export async function company(app: FastifyInstance, over: Record<string, unknown> = {}) {
  return signUp(app, { userType: 'company', company: 'Acme Deliveries', ...over });
}

/** A courier of `owner`, signed in: its session token and profile. */
export async function courier(app: FastifyInstance, ownerToken: string, over: Record<string, unknown> = {}) {
  const email = (over.email as string) ?? `courier${Date.now()}${n++}@example.com`;
  const added = await call(app, 'POST', '/v1/user/general/addmember', {
    token: ownerToken,
    body: { email, role: 'courier', firstName: 'Carl', lastName: 'Courier', phone: '(213) 555-0101', password: 'courierpass1', ...over },
  });
  if (added.statusCode !== 201) throw new Error(`addmember failed: ${JSON.stringify(added.body)}`);
  const login = await call(app, 'POST', '/v1/user/general/login', {
    body: { email, password: (over.password as string) ?? 'courierpass1' },
  });
  if (login.statusCode !== 200) throw new Error(`courier login failed: ${JSON.stringify(login.body)}`);
  return {
    email,
    uid: added.body.payload.uid as string,
    session: login.body.payload.sessionToken as string,
    apiKey: login.body.payload.profile.token as string,
  };
}

/** The README's sendShipment payload of the original SDK. */
export function readmeShipment(courierEmail = 'courier@example.com') {
  return {
    origin: {
      name: 'sender name',
      company: 'sender Company',
      address1: 'sender address',
      address2: null,
      city: 'sender city',
      state: 'CA',
      zip: '90403',
      country: 'US',
      lat: 34.032016,
      long: -118.482805,
      phone: '+18188081111',
      email: 'sam@example.com',
    },
    destination: {
      name: 'receiver name',
      company: null,
      address1: 'receiver address',
      address2: null,
      city: 'receiver city',
      state: 'CA',
      zip: '90401',
      country: 'US',
      lat: 34.032016,
      long: -118.482805,
      phone: '+18188082222',
      email: 'destination@example.com',
    },
    parcels: [
      {
        id: 'SKU45896',
        quantity: 1,
        name: 'custom package name',
        length: 12,
        width: 8,
        height: 3,
        distanceUnit: 'in',
        weight: 1.5,
        weightUnit: 'lb',
        metadata: {},
      },
    ],
    expected: '2019-02-15T14:12:16Z',
    message: 'Left in front of door',
    orderId: '0113191348',
    status: 'InfoReceived',
    courier: 'courier person or company name',
    courierEmail,
    metadata: {},
  };
}

export async function createShipment(app: FastifyInstance, token: string, body: Record<string, unknown> = readmeShipment()) {
  const r = await call(app, 'POST', '/v1/shipment/create', { token, body });
  if (r.statusCode !== 201) throw new Error(`create failed: ${JSON.stringify(r.body)}`);
  return r.body.payload as { tid: string; [k: string]: unknown };
}

/** A checkpoint on a shipment (POST /v1/shipment/update) by a courier or its company; the reply, for the caller to check. */
export const updateShipment = (app: FastifyInstance, token: string, body: Record<string, unknown>) =>
  call(app, 'POST', '/v1/shipment/update', { token, body });

/** A 1x1 transparent PNG as a data URL. */
export const TINY_PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
