// The isolation matrix: every operation of the served OpenAPI document, aimed at company A's records (its
// tracking, shipment, proof of delivery, courier, payment, alert, notification), by a person, company B, company
// B's courier, no token and a forged one; and every owner-only operation by company A's own courier. Nobody
// outside A reads any of A's data or changes any of it. The list of operations comes from the document: a new
// endpoint fails this test until it has a probe here (or a stated reason in NOT_PROBED).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '@shiptrail/contract';
import { createTestEnv, type TestEnv } from '../helpers.ts';
import { readmeShipment } from '../shipments/fixtures.ts';
import { buildWorld, type World } from './world.ts';

let env: TestEnv;
let w: World;
let ops: string[] = [];
const PLAN_DATE = '2030-03-05';
let planTid = '';

beforeAll(async () => {
  env = await createTestEnv();
  w = await buildWorld(env);
  // A's plan of a day (decision 118): an open shipment of that day, planned for A's courier.
  const open = await env.app.inject({
    method: 'POST',
    url: '/v1/shipment/create',
    headers: { 'sm-api-token': w.companyA.session },
    payload: { ...readmeShipment(), unassigned: true, expected: `${PLAN_DATE}T12:00:00Z`, orderId: 'ALPHA-PLANNED' },
  });
  if (open.json().code !== 201) throw new Error(`create failed: ${open.body}`);
  const planned = await env.app.inject({
    method: 'POST',
    url: '/v1/plans',
    headers: { 'sm-api-token': w.companyA.session },
    payload: { date: PLAN_DATE, seconds: 0.1 },
  });
  if (planned.json().code !== 201) throw new Error(`plan failed: ${planned.body}`);
  planTid = open.json().payload.tid;
  const doc = (await env.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  ops = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([p, methods]) =>
    Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`),
  );
}, 120_000);
afterAll(() => env.close());

interface Probe {
  url: string;
  body?: unknown;
  raw?: { payload: string; contentType: string };
}
/** `targetsA`: the probe names one of A's records; every outsider must be refused (a 4xx), never served. */
/** A 1x1 PNG, a logo any probe may try to upload. */
const LOGO_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
type Spec = { probes: (w: World) => Probe[]; targetsA?: boolean; publicByDesign?: string };

const enc = encodeURIComponent;
const SPECS: Record<string, Spec> = {
  'GET /v1/couriers': { probes: () => [{ url: '/v1/couriers' }] },
  'POST /v1/couriers/detect': { probes: (w) => [{ url: '/v1/couriers/detect', body: { tid: w.a.trackingTid } }] },
  'GET /v1/info/pricing': { probes: () => [{ url: '/v1/info/pricing' }] },
  'GET /v1/notifications/log': { probes: () => [{ url: '/v1/notifications/log' }] },
  'POST /v1/notifications/resend/{id}': { targetsA: true, probes: (w) => [{ url: `/v1/notifications/resend/${w.a.notificationId}` }] },
  'POST /v1/shipment/create': { probes: () => [{ url: '/v1/shipment/create', body: readmeShipment() }] },
  'POST /v1/shipment/edit': {
    targetsA: true,
    probes: (w) => [{ url: '/v1/shipment/edit', body: { tid: w.a.shipmentTid, message: 'edited by an outsider', orderId: 'HIJACK' } }],
  },
  'POST /v1/shipment/getassigned': { probes: () => [{ url: '/v1/shipment/getassigned', body: {} }] },
  'POST /v1/shipment/getshipments': { probes: () => [{ url: '/v1/shipment/getshipments', body: {} }] },
  'GET /v1/shipment/labels': { targetsA: true, probes: (w) => [{ url: `/v1/shipment/labels?tids=${w.a.shipmentTid}` }] },
  'GET /v1/shipment/proof/{tid}/{checkpointId}': {
    targetsA: true,
    probes: (w) => [{ url: `/v1/shipment/proof/${w.a.shipmentTid}/${w.a.checkpointId}` }],
  },
  'POST /v1/shipment/today': { probes: () => [{ url: '/v1/shipment/today', body: {} }] },
  'POST /v1/shipment/assign': {
    targetsA: true,
    probes: (w) => [{ url: '/v1/shipment/assign', body: { tids: [w.a.shipmentTid], courierEmail: w.courierA.email } }],
  },
  'POST /v1/shipment/unassign': { targetsA: true, probes: (w) => [{ url: '/v1/shipment/unassign', body: { tids: [w.a.shipmentTid] } }] },
  'POST /v1/shipment/markers': { probes: () => [{ url: '/v1/shipment/markers', body: {} }] },
  // Plan the day: a caller plans, reads and changes its own company's days only (A has a plan of PLAN_DATE).
  'POST /v1/plans': { probes: () => [{ url: '/v1/plans', body: { date: PLAN_DATE, seconds: 0.1 } }] },
  'GET /v1/plans/{date}': { targetsA: true, probes: () => [{ url: `/v1/plans/${PLAN_DATE}` }] },
  'POST /v1/plans/{date}/replan': { targetsA: true, probes: () => [{ url: `/v1/plans/${PLAN_DATE}/replan`, body: { seconds: 0.1 } }] },
  'PATCH /v1/plans/{date}/stops/{tid}': {
    targetsA: true,
    probes: () => [{ url: `/v1/plans/${PLAN_DATE}/stops/${planTid}`, body: { locked: true } }],
  },
  'POST /v1/user/general/logo': { probes: () => [{ url: '/v1/user/general/logo', body: { image: LOGO_PNG } }] },
  'POST /v1/user/general/logo/remove': { probes: () => [{ url: '/v1/user/general/logo/remove', body: {} }] },
  'GET /v1/brand/logo/{file}': {
    publicByDesign: "a company's uploaded logo: it shows on the public tracking page and in its customers' mails",
    probes: (w) => [{ url: `/v1/brand/logo/${w.companyA.uid}.png` }],
  },
  'POST /v1/shipment/update': {
    targetsA: true,
    probes: (w) => [{ url: '/v1/shipment/update', body: { tid: w.a.shipmentTid, status: 'Exception', location: 'Nowhere' } }],
  },
  'GET /v1/track/{uidTid}': {
    publicByDesign: "the public tracking page: anyone with the link sees the parcel's status (the data the mails link to)",
    probes: (w) => [{ url: `/v1/track/${w.companyA.uid}_${w.a.trackingTid}` }],
  },
  'POST /v1/trackings/add': { probes: (w) => [{ url: '/v1/trackings/add', body: { tid: w.a.trackingTid } }] },
  'DELETE /v1/trackings/delete/{tid}': { targetsA: true, probes: (w) => [{ url: `/v1/trackings/delete/${w.a.privateTid}` }] },
  'GET /v1/trackings/delivered/{tid}': { targetsA: true, probes: (w) => [{ url: `/v1/trackings/delivered/${w.a.privateTid}` }] },
  'GET /v1/trackings/get': { probes: () => [{ url: '/v1/trackings/get?numRecords=100' }] },
  'GET /v1/trackings/performance': { probes: () => [{ url: '/v1/trackings/performance' }] },
  'POST /v1/trackings/import': {
    probes: (w) => [{ url: '/v1/trackings/import', raw: { payload: `tid\n${w.a.trackingTid}\n`, contentType: 'text/csv' } }],
  },
  'POST /v1/trackings/refresh/{tid}': { targetsA: true, probes: (w) => [{ url: `/v1/trackings/refresh/${w.a.privateTid}` }] },
  'PUT /v1/trackings/update': {
    targetsA: true,
    probes: (w) => [{ url: '/v1/trackings/update', body: { tid: w.a.privateTid, title: 'renamed by an outsider' } }],
  },
  'POST /v1/user/alerts/dismiss/{id}': { targetsA: true, probes: (w) => [{ url: `/v1/user/alerts/dismiss/${w.a.alertId}` }] },
  'GET /v1/user/email/verify/resend': {
    publicByDesign:
      'resend activation carries no token (product rules §6): anyone may ask for an activation mail to an address; it goes to its owner only, and only while unverified',
    probes: (w) => [{ url: '/v1/user/email/verify/resend' }, { url: `/v1/user/email/verify/resend?email=${enc(w.companyA.email)}` }],
  },
  'GET /v1/user/email/verify/{key}': { probes: () => [{ url: '/v1/user/email/verify/not-a-real-key-0000' }] },
  'POST /v1/user/general/addbalance': { probes: () => [{ url: '/v1/user/general/addbalance', body: { amount: 10 } }] },
  'POST /v1/user/general/addmember': {
    probes: (w) => [
      {
        url: '/v1/user/general/addmember',
        body: { email: w.courierA.email, role: 'courier', firstName: 'Taken', lastName: 'Over', password: 'courierpass1' },
      },
    ],
  },
  'POST /v1/user/general/deletemember': {
    targetsA: true,
    probes: (w) => [
      { url: '/v1/user/general/deletemember', body: { uid: w.courierA.uid } },
      { url: '/v1/user/general/deletemember', body: { email: w.courierA.email } },
    ],
  },
  'POST /v1/user/general/generatenewtoken': { probes: () => [{ url: '/v1/user/general/generatenewtoken' }] },
  'POST /v1/user/general/getintouch': {
    probes: (w) => [
      { url: '/v1/user/general/getintouch', body: { name: 'Probe', email: w.companyA.email, message: 'Hello from the isolation matrix' } },
    ],
  },
  'POST /v1/user/general/getmembers': { probes: () => [{ url: '/v1/user/general/getmembers', body: {} }] },
  'POST /v1/user/invitations/create': {
    probes: (w) => [{ url: '/v1/user/invitations/create', body: { email: w.courierA.email, firstName: 'Taken', lastName: 'Over' } }],
  },
  'GET /v1/user/invitations/list': { probes: () => [{ url: '/v1/user/invitations/list' }] },
  'POST /v1/user/invitations/resend': {
    targetsA: true,
    probes: (w) => [{ url: '/v1/user/invitations/resend', body: { id: w.a.invitationId } }],
  },
  'POST /v1/user/invitations/revoke': {
    targetsA: true,
    probes: (w) => [{ url: '/v1/user/invitations/revoke', body: { id: w.a.invitationId } }],
  },
  'GET /v1/invitations/{token}': { probes: () => [{ url: '/v1/invitations/not-a-real-invitation-token-0000' }] },
  'POST /v1/invitations/accept': {
    probes: () => [
      {
        url: '/v1/invitations/accept',
        body: { token: 'not-a-real-invitation-token-0000', password: 'password123', repassword: 'password123' },
      },
    ],
  },
  'POST /v1/invitations/decline': {
    probes: () => [{ url: '/v1/invitations/decline', body: { token: 'not-a-real-invitation-token-0000' } }],
  },
  'POST /v1/user/general/getusage': { probes: () => [{ url: '/v1/user/general/getusage', body: {} }] },
  'POST /v1/user/general/invitefriend': { probes: (w) => [{ url: '/v1/user/general/invitefriend', body: { email: w.companyA.email } }] },
  'POST /v1/user/general/login': {
    probes: (w) => [{ url: '/v1/user/general/login', body: { email: w.companyA.email, password: 'not-the-password' } }],
  },
  'POST /v1/user/general/logout': { probes: () => [{ url: '/v1/user/general/logout' }] },
  'POST /v1/user/general/passwordreset': {
    probes: () => [
      {
        url: '/v1/user/general/passwordreset',
        body: { verifycode: 'not-a-real-key-0000', password: 'newpassword1', repassword: 'newpassword1' },
      },
    ],
  },
  'POST /v1/user/general/passwordupdate': {
    probes: () => [{ url: '/v1/user/general/passwordupdate', body: { password: 'wrong-old-password', newPassword: 'newpassword1' } }],
  },
  'POST /v1/user/general/position': { probes: () => [{ url: '/v1/user/general/position', body: { lat: 40.7, long: -74 } }] },
  'POST /v1/user/general/positions': {
    probes: () => [{ url: '/v1/user/general/positions', body: { positions: [{ lat: 40.7, lng: -74, takenAt: '2030-03-05T12:00:00Z' }] } }],
  },
  'POST /v1/user/general/trail': { targetsA: true, probes: (w) => [{ url: '/v1/user/general/trail', body: { uid: w.courierA.uid } }] },
  'POST /v1/user/general/signup': {
    probes: (w) => [
      {
        url: '/v1/user/general/signup',
        body: { email: w.companyA.email, password: 'password123', repassword: 'password123', terms: true },
      },
    ],
  },
  'POST /v1/user/general/supportrequest': {
    probes: () => [{ url: '/v1/user/general/supportrequest', body: { subject: 'Probe', message: 'From the isolation matrix' } }],
  },
  'POST /v1/user/general/update': { probes: (w) => [{ url: '/v1/user/general/update', body: { profile: { email: w.companyA.email } } }] },
  'POST /v1/user/general/updatemember': {
    targetsA: true,
    probes: (w) => [
      {
        url: '/v1/user/general/updatemember',
        body: {
          uid: w.courierA.uid,
          email: w.courierA.email,
          role: 'courier',
          firstName: 'Hijacked',
          lastName: 'Rider',
          phone: '(213) 555-0101',
        },
      },
    ],
  },
  'GET /v1/user/geo/autocomplete': { probes: () => [{ url: '/v1/user/geo/autocomplete?q=90401' }] },
  'GET /v1/user/geo/lookup': { probes: () => [{ url: '/v1/user/geo/lookup?zip=90401' }] },
  'GET /v1/user/info': { probes: () => [{ url: '/v1/user/info' }] },
  'GET /v1/user/password/recover/{email}': {
    publicByDesign: 'password recovery: anyone may ask for a reset mail to an address; the mail goes to its owner only',
    probes: (w) => [{ url: `/v1/user/password/recover/${enc(w.companyA.email)}` }],
  },
  'POST /v1/user/payment/add': { probes: () => [{ url: '/v1/user/payment/add', body: { paymentMethodToken: 'fake-valid-visa-nonce' } }] },
  'POST /v1/user/payment/edit': {
    probes: () => [{ url: '/v1/user/payment/edit', body: { amountAutoRecharge: 0, minimumBalanceForAutoRecharge: 0 } }],
  },
  'GET /v1/user/payment/history': { probes: () => [{ url: '/v1/user/payment/history' }] },
  'GET /v1/user/payment/info': { probes: () => [{ url: '/v1/user/payment/info' }] },
  'GET /v1/user/payment/receipt/{id}': { targetsA: true, probes: (w) => [{ url: `/v1/user/payment/receipt/${w.a.paymentId}` }] },
  'GET /v1/user/payment/receipt/{id}/pdf': { targetsA: true, probes: (w) => [{ url: `/v1/user/payment/receipt/${w.a.paymentId}/pdf` }] },
  'GET /v1/user/payment/token/generate': { probes: () => [{ url: '/v1/user/payment/token/generate' }] },
  'POST /v1/user/webhook/secret/regenerate': { probes: () => [{ url: '/v1/user/webhook/secret/regenerate' }] },
};

/** Operations the matrix cannot probe with a request and a reply, and where they are covered instead. */
const NOT_PROBED: Record<string, string> = {
  'GET /v1/live':
    'a server-sent event stream that stays open; test/live/stream.test.ts checks that each stream carries only its own account',
  'GET /v1/track/{uidTid}/live':
    "a public parcel page's event stream (public by design, as the page); test/live/public-stream.test.ts checks it carries that parcel's number and status only",
};

/** Operations a courier may not use (they belong to the account's owner): the account's settings, money and keys. */
const OWNER_ONLY = [
  'GET /v1/notifications/log',
  'POST /v1/notifications/resend/{id}',
  'POST /v1/user/webhook/secret/regenerate',
  'POST /v1/user/general/update',
  'POST /v1/user/general/generatenewtoken',
  'POST /v1/user/general/invitefriend',
  'GET /v1/user/payment/token/generate',
  'POST /v1/user/payment/add',
  'GET /v1/user/payment/info',
  'POST /v1/user/payment/edit',
  'POST /v1/user/general/addbalance',
  'GET /v1/user/payment/history',
  'GET /v1/user/payment/receipt/{id}',
  'GET /v1/user/payment/receipt/{id}/pdf',
  'POST /v1/user/general/getusage',
  'POST /v1/user/invitations/create',
  'GET /v1/user/invitations/list',
  'POST /v1/user/invitations/resend',
  'POST /v1/user/invitations/revoke',
];

/**
 * What a courier may call, besides the public calls: its own session, password, alerts and support request,
 * the place helpers of a checkpoint, its live stream and position, and the shipments assigned to it. Every
 * other signed-in operation belongs to the account's owner and must refuse a courier with 403: a new endpoint
 * is the owner's unless it is named here.
 */
const COURIER_MAY = new Set([
  'POST /v1/user/general/logout',
  'GET /v1/user/email/verify/resend',
  'POST /v1/user/general/passwordupdate',
  'GET /v1/user/info',
  'POST /v1/user/general/supportrequest',
  'POST /v1/user/alerts/dismiss/{id}',
  'GET /v1/user/geo/lookup',
  'GET /v1/user/geo/autocomplete',
  'GET /v1/live',
  'POST /v1/user/general/position',
  'POST /v1/user/general/positions',
  'POST /v1/shipment/update',
  'POST /v1/shipment/getassigned',
  'POST /v1/shipment/today',
  // The map's markers, scoped like getassigned: a courier gets the shipments assigned to it.
  'POST /v1/shipment/markers',
  'GET /v1/shipment/proof/{tid}/{checkpointId}',
  'GET /v1/shipment/labels',
]);

/** A digest of every row that belongs to company A (its users, trackings, shipments, money, alerts, notifications). */
async function snapshotOfA(): Promise<Record<string, string>> {
  const r = await env.ctx.db.execute<{ t: string; d: string | null }>(sql`
    with ids as (select id from users where email = ${w.companyA.email} or company_id = (select id from users where email = ${w.companyA.email})),
         a as (select id from users where email = ${w.companyA.email})
    select 'users' as t, md5(string_agg(row_to_json(x)::text, '|' order by x.id)) as d from users x where x.id in (select id from ids)
    union all select 'sessions', md5(string_agg(row_to_json(x)::text, '|' order by x.id)) from sessions x where x.user_id in (select id from ids)
    union all select 'trackings', md5(string_agg(row_to_json(x)::text, '|' order by x.id)) from trackings x where x.user_id in (select id from ids)
    union all select 'checkpoints', md5(string_agg(row_to_json(x)::text, '|' order by x.id)) from checkpoints x where x.tracking_id in (select id from trackings where user_id in (select id from ids))
    union all select 'shipments', md5(string_agg(row_to_json(x)::text, '|' order by x.id)) from shipments x where x.company_id in (select id from a)
    union all select 'shipment_checkpoints', md5(string_agg(row_to_json(x)::text, '|' order by x.id)) from shipment_checkpoints x where x.shipment_id in (select id from shipments where company_id in (select id from a))
    union all select 'payments', md5(string_agg(row_to_json(x)::text, '|' order by x.id)) from payments x where x.user_id in (select id from a)
    union all select 'ledger', md5(string_agg(row_to_json(x)::text, '|' order by x.id)) from ledger_entries x where x.user_id in (select id from a)
    union all select 'billing', md5(string_agg(row_to_json(x)::text, '|' order by x.user_id)) from billing_accounts x where x.user_id in (select id from a)
    union all select 'alerts', md5(string_agg(row_to_json(x)::text, '|' order by x.id)) from alerts x where x.user_id in (select id from ids)
    union all select 'notifications', md5(string_agg(row_to_json(x)::text, '|' order by x.id)) from notifications x where x.user_id in (select id from a)
    union all select 'delivery_plans', md5(string_agg(row_to_json(x)::text, '|' order by x.id)) from delivery_plans x where x.company_id in (select id from a)
    union all select 'plan_stops', md5(string_agg(row_to_json(x)::text, '|' order by x.shipment_id)) from plan_stops x where x.plan_id in (select id from delivery_plans where company_id in (select id from a))
    union all select 'courier_positions', md5(string_agg(row_to_json(x)::text, '|' order by x.id)) from courier_positions x where x.courier_id in (select id from ids)
    union all select 'courier_invitations', md5(string_agg(row_to_json(x)::text, '|' order by x.id)) from courier_invitations x where x.company_id in (select id from a)`);
  const rows = (r as unknown as { rows: Array<{ t: string; d: string | null }> }).rows;
  return Object.fromEntries(rows.map((x) => [x.t, x.d ?? '']));
}

async function send(probe: Probe, method: string, token: string | null) {
  const headers: Record<string, string> = { 'sm-http-status': 'real', ...(token ? { 'sm-api-token': token } : {}) };
  let payload: string | undefined;
  if (probe.raw) {
    payload = probe.raw.payload;
    headers['content-type'] = probe.raw.contentType;
  } else if (probe.body !== undefined) {
    payload = JSON.stringify(probe.body);
    headers['content-type'] = 'application/json';
  }
  return env.app.inject({ method: method as 'GET', url: probe.url, headers, payload });
}

/** Each probe of `toTry` that company A's own courier sent and was not refused (403), with what it got. */
async function notRefusedToCourierA(toTry: readonly string[]) {
  const allowed: string[] = [];
  for (const op of toTry) {
    const method = op.split(' ')[0]!;
    for (const probe of SPECS[op]!.probes(w)) {
      const res = await send(probe, method, w.courierA.session);
      if (res.statusCode !== 403) allowed.push(`${method} ${probe.url} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
  }
  return allowed;
}

// Each case sends every documented call (hundreds of requests): a budget a loaded 2-core machine holds, not a latency bound.
describe('the isolation matrix', { timeout: 120_000 }, () => {
  it('covers every operation of the OpenAPI document', () => {
    const missing = ops.filter((op) => !SPECS[op] && !NOT_PROBED[op]);
    const stale = Object.keys(SPECS).filter((op) => !ops.includes(op));
    expect(missing, 'operations with no probe: add one to SPECS').toEqual([]);
    expect(stale, 'probes for operations the document no longer has').toEqual([]);
  });

  it('outsiders (a person, another company, its courier, no token, a forged token) read nothing of A and change nothing', async () => {
    const outsiders: Array<{ name: string; token: string | null }> = [
      { name: 'person', token: w.person.session },
      { name: 'person (API key)', token: w.person.apiKey },
      { name: 'company B', token: w.companyB.session },
      { name: "company B's courier", token: w.courierB.session },
      { name: 'no token', token: null },
      { name: 'forged session', token: `sess_${'0'.repeat(40)}` },
    ];
    const before = await snapshotOfA();
    const counts: Record<string, number> = {};
    const leaks: string[] = [];
    const served: string[] = [];
    let requests = 0;
    for (const op of Object.keys(SPECS)) {
      const spec = SPECS[op]!;
      const method = op.split(' ')[0]!;
      for (const who of outsiders) {
        for (const probe of spec.probes(w)) {
          const res = await send(probe, method, who.token);
          requests++;
          counts[res.statusCode] = (counts[res.statusCode] ?? 0) + 1;
          const what = `${who.name}: ${method} ${probe.url} -> ${res.statusCode} ${res.body.slice(0, 200)}`;
          expect(res.statusCode, what).toBeLessThan(500);
          const sent = `${probe.url} ${JSON.stringify(probe.body ?? '')} ${probe.raw?.payload ?? ''}`;
          if (!spec.publicByDesign)
            for (const s of w.a.secrets) if (!sent.includes(s) && res.body.includes(s)) leaks.push(`${what} shows "${s}"`);
          if (spec.targetsA && res.statusCode < 400) served.push(what);
        }
      }
    }
    const after = await snapshotOfA();
    console.info(
      `isolation matrix: ${Object.keys(SPECS).length} operations x ${outsiders.length} outsiders, ${requests} requests; statuses ${JSON.stringify(counts)}; A's data unchanged: ${JSON.stringify(after) === JSON.stringify(before)}`,
    );
    expect(leaks).toEqual([]);
    expect(served).toEqual([]);
    expect(after).toEqual(before);
  });

  it("company A's own courier is refused every owner-only operation, and changes nothing of A's", async () => {
    const before = await snapshotOfA();
    const allowed = await notRefusedToCourierA(OWNER_ONLY);
    expect(allowed).toEqual([]);
    expect(await snapshotOfA()).toEqual(before);
  });

  it("company A's own courier is refused every signed-in operation that is not a courier's (the list comes from the document)", async () => {
    const signedIn = new Set(endpoints.filter((e) => e.auth).map((e) => `${e.method} ${e.path}`));
    const ownerOps = ops.filter((op) => signedIn.has(op) && !COURIER_MAY.has(op));
    // The document's signed-in operations and the courier's list agree: nothing named here is gone.
    expect([...COURIER_MAY].filter((op) => !ops.includes(op))).toEqual([]);
    expect(ownerOps.length).toBeGreaterThan(OWNER_ONLY.length);
    const before = await snapshotOfA();
    const allowed = await notRefusedToCourierA(ownerOps);
    expect(allowed).toEqual([]);
    expect(await snapshotOfA()).toEqual(before);
  });

  it('can fail: the owner reading its own records is served them (the probes reach real records)', async () => {
    const seen: string[] = [];
    for (const op of Object.keys(SPECS).filter((o) => SPECS[o]!.targetsA && o.startsWith('GET'))) {
      for (const probe of SPECS[op]!.probes(w)) {
        const res = await send(probe, 'GET', w.companyA.session);
        if (res.statusCode === 200) seen.push(op);
      }
    }
    expect(seen.sort()).toEqual([
      'GET /v1/plans/{date}',
      'GET /v1/shipment/labels',
      'GET /v1/shipment/proof/{tid}/{checkpointId}',
      'GET /v1/trackings/delivered/{tid}',
      'GET /v1/user/payment/receipt/{id}',
      'GET /v1/user/payment/receipt/{id}/pdf',
    ]);
  });

  it('can fail: the same write probes sent by the owner change its records (last: they change A)', async () => {
    const before = await snapshotOfA();
    const refused: string[] = [];
    const destructive = (o: string) => /delete/.test(o);
    const writes = Object.keys(SPECS).filter((o) => SPECS[o]!.targetsA && !o.startsWith('GET'));
    for (const op of [...writes.filter((o) => !destructive(o)), ...writes.filter(destructive)]) {
      for (const probe of SPECS[op]!.probes(w)) {
        const res = await send(probe, op.split(' ')[0]!, w.companyA.session);
        if (res.statusCode >= 400) refused.push(`${op} ${JSON.stringify(probe.body ?? '')} -> ${res.statusCode} ${res.body.slice(0, 160)}`);
      }
    }
    // The owner may do each of them, except where the answer is about A's own record: the second way of deleting
    // the courier finds it gone already, A's notification is a mail (only webhooks are resent), and the private
    // parcel was marked delivered by the read test above (GET .../delivered marks it), so it is not refreshed.
    expect(refused.sort()).toEqual([
      expect.stringMatching(/^POST \/v1\/notifications\/resend\/\{id\} .* -> 400 .*Only webhook notifications can be resent/),
      expect.stringMatching(/^POST \/v1\/trackings\/refresh\/\{tid\} .* -> 409 .*Delivered/),
      expect.stringMatching(/^POST \/v1\/user\/general\/deletemember .*"email".* -> 404/),
    ]);
    const after = await snapshotOfA();
    const changed = Object.keys(before)
      .filter((t) => before[t] !== after[t])
      .sort();
    // Renamed and deleted tracking, edited shipment with a new checkpoint, dismissed alert, deleted courier.
    expect(changed).toEqual(expect.arrayContaining(['alerts', 'shipment_checkpoints', 'shipments', 'trackings', 'users']));
  });
});
