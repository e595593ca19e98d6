// Every shipment and member call, by every kind of caller: the company that owns the data, its courier (the
// one the shipment is assigned to), another company's courier, another company, a person account, and no
// token. Nothing of company A may be read or changed by anyone but A and, for what is assigned to them, A's
// courier.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { TINY_PNG, company, courier, createShipment, readmeShipment } from './fixtures.ts';

let env: TestEnv;
type Actor = 'owner' | 'courier' | 'otherCourier' | 'otherCompany' | 'person' | 'none';
const ACTORS: Actor[] = ['owner', 'courier', 'otherCourier', 'otherCompany', 'person', 'none'];
const tokens: Record<Actor, string | undefined> = {
  owner: '',
  courier: '',
  otherCourier: '',
  otherCompany: '',
  person: '',
  none: undefined,
};
let assigned = '';
let unassigned = '';
let courierEmail = '';
let proofCheckpoint = 0;

beforeAll(async () => {
  env = await createTestEnv();
  const a = await company(env.app);
  const b = await company(env.app, { company: 'Other Co' });
  const p = await signUp(env.app);
  const k = await courier(env.app, a.session);
  const kb = await courier(env.app, b.session);
  Object.assign(tokens, { owner: a.session, courier: k.session, otherCourier: kb.session, otherCompany: b.session, person: p.session });
  courierEmail = k.email;
  assigned = (await createShipment(env.app, a.session, readmeShipment(k.email))).tid;
  unassigned = (await createShipment(env.app, a.session)).tid;
  const delivered = await call(env.app, 'POST', '/v1/shipment/update', {
    token: k.session,
    body: { tid: assigned, status: 'Delivered', location: 'Front door', proof: { recipientName: 'Rita Receiver', signature: TINY_PNG } },
  });
  expect(delivered.statusCode).toBe(200);
  proofCheckpoint = delivered.body.payload.checkpoints[0].id;
});
afterAll(async () => {
  await env?.close();
});

interface Case {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: () => string;
  body?: () => unknown;
  expect: Record<Actor, number>;
  /** For a 200 list: must A's data appear in it? */
  lists?: { tid?: () => string; email?: () => string; visibleTo: Actor[] };
}

const checkpoint = (tid: () => string) => () => ({ tid: tid(), status: 'OutForDelivery', location: 'Probe', time: '2026-01-01T00:00:00Z' });
const CASES: Case[] = [
  {
    name: 'create',
    method: 'POST',
    url: () => '/v1/shipment/create',
    body: () => readmeShipment(),
    expect: { owner: 201, courier: 403, otherCourier: 403, otherCompany: 201, person: 403, none: 401 },
  },
  {
    name: 'update (assigned)',
    method: 'POST',
    url: () => '/v1/shipment/update',
    body: checkpoint(() => assigned),
    expect: { owner: 200, courier: 200, otherCourier: 404, otherCompany: 404, person: 404, none: 401 },
  },
  {
    name: 'update (unassigned)',
    method: 'POST',
    url: () => '/v1/shipment/update',
    body: checkpoint(() => unassigned),
    expect: { owner: 200, courier: 404, otherCourier: 404, otherCompany: 404, person: 404, none: 401 },
  },
  {
    name: 'edit',
    method: 'POST',
    url: () => '/v1/shipment/edit',
    body: () => ({ tid: assigned, message: 'probe' }),
    expect: { owner: 200, courier: 403, otherCourier: 403, otherCompany: 404, person: 403, none: 401 },
  },
  {
    name: 'getshipments',
    method: 'POST',
    url: () => '/v1/shipment/getshipments',
    body: () => ({}),
    expect: { owner: 200, courier: 403, otherCourier: 403, otherCompany: 200, person: 403, none: 401 },
    lists: { tid: () => assigned, visibleTo: ['owner'] },
  },
  {
    name: 'getassigned',
    method: 'POST',
    url: () => '/v1/shipment/getassigned',
    body: () => ({}),
    expect: { owner: 403, courier: 200, otherCourier: 200, otherCompany: 403, person: 403, none: 401 },
    lists: { tid: () => assigned, visibleTo: ['courier'] },
  },
  {
    name: 'today',
    method: 'POST',
    url: () => '/v1/shipment/today',
    body: () => ({}),
    expect: { owner: 403, courier: 200, otherCourier: 200, otherCompany: 403, person: 403, none: 401 },
    lists: { tid: () => assigned, visibleTo: ['courier'] },
  },
  {
    name: 'proof',
    method: 'GET',
    url: () => `/v1/shipment/proof/${assigned}/${proofCheckpoint}`,
    expect: { owner: 200, courier: 200, otherCourier: 404, otherCompany: 404, person: 404, none: 401 },
  },
  {
    name: 'labels',
    method: 'GET',
    url: () => `/v1/shipment/labels?tids=${assigned}`,
    expect: { owner: 200, courier: 200, otherCourier: 404, otherCompany: 404, person: 403, none: 401 },
  },
  {
    name: 'labels (unassigned)',
    method: 'GET',
    url: () => `/v1/shipment/labels?tids=${unassigned}`,
    expect: { owner: 200, courier: 404, otherCourier: 404, otherCompany: 404, person: 403, none: 401 },
  },
  {
    name: 'addmember',
    method: 'POST',
    url: () => '/v1/user/general/addmember',
    body: () => ({
      email: `probe${Math.random().toString(36).slice(2)}@example.com`,
      role: 'courier',
      firstName: 'P',
      lastName: 'Q',
      phone: '2135550199',
      password: 'password123',
    }),
    expect: { owner: 201, courier: 403, otherCourier: 403, otherCompany: 201, person: 403, none: 401 },
  },
  {
    name: 'updatemember',
    method: 'POST',
    url: () => '/v1/user/general/updatemember',
    body: () => ({ email: courierEmail, role: 'courier', firstName: 'Carl', lastName: 'Courier', phone: '2135550101' }),
    expect: { owner: 200, courier: 403, otherCourier: 403, otherCompany: 404, person: 403, none: 401 },
  },
  {
    name: 'getmembers',
    method: 'POST',
    url: () => '/v1/user/general/getmembers',
    expect: { owner: 200, courier: 403, otherCourier: 403, otherCompany: 200, person: 403, none: 401 },
    lists: { email: () => courierEmail, visibleTo: ['owner'] },
  },
  // Not a delete of A's courier by A (that would end the courier's session for the rest of the matrix).
  {
    name: 'deletemember',
    method: 'POST',
    url: () => '/v1/user/general/deletemember',
    body: () => ({ email: courierEmail }),
    expect: { owner: 200, courier: 403, otherCourier: 403, otherCompany: 404, person: 403, none: 401 },
  },
];

/** The labels call answers a PDF on success and an envelope otherwise. */
async function pdfCall(url: string, token: string | undefined) {
  const res = await env.app.inject({
    method: 'GET',
    url,
    headers: { 'sm-http-status': 'real', ...(token ? { 'sm-api-token': token } : {}) },
  });
  if (res.statusCode === 200) {
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    return { statusCode: 200, body: { payload: null } as { payload: unknown } };
  }
  return { statusCode: res.statusCode, body: res.json() };
}

describe('permissions matrix: every shipment and member call, every caller', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      // The owner goes last, so a call that changes things (deletemember) has been refused to everyone else first.
      for (const actor of [...ACTORS.filter((a) => a !== 'owner'), 'owner' as const]) {
        const r = c.url().includes('/labels')
          ? await pdfCall(c.url(), tokens[actor])
          : await call(env.app, c.method, c.url(), { token: tokens[actor], body: c.body?.() });
        expect({ actor, status: r.statusCode }).toEqual({ actor, status: c.expect[actor] });
        if (r.statusCode >= 400) {
          // Refusals name nothing of A's: no tid, no email, no address.
          const text = JSON.stringify(r.body);
          expect(text).not.toContain('receiver address');
          expect(text).not.toContain(courierEmail);
        }
        if (c.lists && r.statusCode === 200) {
          const text = JSON.stringify(r.body.payload);
          const needle = c.lists.tid?.() ?? c.lists.email!();
          expect({ actor, sees: text.includes(needle) }).toEqual({ actor, sees: c.lists.visibleTo.includes(actor) });
        }
      }
    });
  }

  it("refused calls changed nothing of A's: only the owner's and the assigned courier's checkpoints were added", async () => {
    const list = await call(env.app, 'POST', '/v1/shipment/getshipments', { token: tokens.owner, body: {} });
    const a = list.body.payload.find((s: { tid: string }) => s.tid === assigned);
    // Created, Delivered (with proof), and the two accepted probes (courier, owner): listed in their own times, so
    // compared as a set of authors.
    expect(a.checkpoints.map((c: { by: { role: string } }) => c.by.role).sort()).toEqual(['company', 'company', 'courier', 'courier']);
    expect(a.message).toBe('probe');
    const u = list.body.payload.find((s: { tid: string }) => s.tid === unassigned);
    expect(u.checkpoints).toHaveLength(2);
    // The deleted courier's shipment stays with the company, unassigned, still naming its courier.
    expect(a).toMatchObject({ courierUid: null, courierEmail });
  });
});
