// The embedded default (`npm start`: one process, PGlite in DATA_DIR) killed with SIGKILL 20 times while it writes,
// and started again on the same data directory each time. During each run, adds, top-ups, CSV imports, shipment
// creates and couriers' Delivered checkpoints with proofs go on at once; the kill lands at a random moment. Then:
// it always starts, every acknowledged write is there, nothing unacknowledged is half there (a tracking without its
// charge, a charge without its tracking, a checkpoint without its proof, a sale at the gateway with neither a credit
// nor a payment the sweep will settle), and each balance equals its ledger. In the slow set (real processes).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { api, Cluster, type ServerProcess, signUpAt } from '../scale/cluster.ts';
import { readmeShipment, TINY_PNG } from '../shipments/fixtures.ts';

const KILLS = Number(process.env.EMBEDDED_KILLS ?? 20);
const cluster = new Cluster();
const dataDir = mkdtempSync(path.join(tmpdir(), 'shiptrail-embedded-kill-'));

afterAll(async () => {
  await cluster.stopAll();
  rmSync(dataDir, { recursive: true, force: true });
});

type Acked = { adds: string[]; imports: string[]; topups: string[]; shipments: string[]; delivered: string[] };
const acked: Acked = { adds: [], imports: [], topups: [], shipments: [], delivered: [] };
let unacknowledged = 0;

const refusals = new Map<string, string>();
/** The payload of the last CSV import answered (tryCall with a raw body). */
let lastPayload: unknown = null;
/** An answer that is not a 2xx: kept (one per route and status) to say why when the load wrote too little. */
function refused(p: string, status: number, text: string) {
  refusals.set(`${p} ${status}`, text.slice(0, 300));
}

/** A request whose answer may never come (the process dies under it): true only for a 2xx answer. */
async function tryCall(
  url: string,
  p: string,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
  raw?: string,
): Promise<boolean> {
  try {
    if (raw !== undefined) {
      const res = await fetch(url + p, {
        method: 'POST',
        headers: { 'sm-http-status': 'real', 'sm-api-token': token, 'content-type': 'text/csv', ...headers },
        body: raw,
      });
      const text = await res.text();
      if (!res.ok) refused(p, res.status, text);
      lastPayload = res.ok ? (JSON.parse(text) as { payload: unknown }).payload : null;
      return res.ok;
    }
    const r = await api(url, 'POST', p, token, body, headers);
    if (r.status < 200 || r.status >= 300) refused(p, r.status, JSON.stringify(r.body));
    return r.status >= 200 && r.status < 300;
  } catch {
    unacknowledged++;
    return false;
  }
}

// The embedded default is what this file runs; the PostgreSQL pass (TEST_DATABASE_URL) has nothing to add to it.
describe.skipIf(!!process.env.TEST_DATABASE_URL)('the embedded default under kill -9', () => {
  it(`killed ${KILLS} times during adds, top-ups, imports and checkpoints with proofs: every acknowledged write kept, nothing half written, balance = ledger`, async () => {
    const env = {
      DATA_DIR: dataDir,
      SESSION_SECRET: 'embedded-kill-secret-embedded-kill-0123',
      CARRIER_SANDBOX_PACE: '0.05',
      // The abuse limits on top-ups and proof uploads would stop the load long before 20 rounds (docs/operations.md).
      TOPUP_RATE_LIMIT: 'off',
      CARD_USE_RATE_LIMIT: 'off',
      PROOF_UPLOADS_PER_HOUR: '100000',
      // Node's compile cache in the test's own directory, to see that a killed process leaves it written.
      NODE_COMPILE_CACHE: path.join(dataDir, 'compile-cache'),
    };
    const server: ServerProcess = await cluster.start('all', env);
    const url = () => server.url;

    // A person who adds, imports and tops up; a company whose courier delivers its shipments.
    const { key: personKey } = await signUpAt(url(), 'kill-person@example.com');
    expect((await api(url(), 'POST', '/v1/user/payment/add', personKey, { paymentMethodToken: 'fake-valid-visa-nonce' })).status).toBe(200);
    const { key: ownerKey } = await signUpAt(url(), 'kill-owner@example.com', { userType: 'company', company: 'Kill Test Deliveries' });
    const courierEmail = 'kill-courier@example.com';
    const added = await api(url(), 'POST', '/v1/user/general/addmember', ownerKey, {
      email: courierEmail,
      role: 'courier',
      firstName: 'Kim',
      lastName: 'Courier',
      phone: '(213) 555-0199',
      password: 'courierpass1',
    });
    expect(added.status).toBe(201);
    const login = await api(url(), 'POST', '/v1/user/general/login', undefined, { email: courierEmail, password: 'courierpass1' });
    expect(login.status).toBe(200);
    const courierToken = login.body.payload.sessionToken as string;

    let n = 0;
    const startups: number[] = [];
    for (let round = 0; round < KILLS; round++) {
      let stop = false;
      const loop = async (work: () => Promise<void>) => {
        while (!stop) await work();
      };
      const loops = [
        loop(async () => {
          const tid = `KILL${round}A${n++}`;
          if (await tryCall(url(), '/v1/trackings/add', personKey, { tid, courier: 'ups', title: 'kill test' })) acked.adds.push(tid);
        }),
        loop(async () => {
          const key = `kill-topup-${round}-${n++}`;
          if (await tryCall(url(), '/v1/user/general/addbalance', personKey, { amount: 20 }, { 'idempotency-key': key }))
            acked.topups.push(key);
        }),
        (async () => {
          // One import of 50 rows a round (the route allows 30 imports in 15 minutes): some rounds wait for it, the
          // others kill while it may be under way.
          const tids = Array.from({ length: 50 }, () => `KILL${round}I${n++}`);
          const csv = ['tid,courier,title', ...tids.map((t) => `${t},ups,imported`)].join('\n');
          if (await tryCall(url(), '/v1/trackings/import', personKey, undefined, { 'idempotency-key': `kill-import-${round}` }, csv)) {
            // The report says which rows it created (a row can fail on its own, e.g. when the balance runs out).
            const report = lastPayload as { rows: Array<{ tid: string; status: string }> };
            acked.imports.push(...report.rows.filter((r) => r.status === 'created').map((r) => r.tid));
          }
        })(),
        loop(async () => {
          // Create a shipment for the courier, then deliver it with a signature and a photo.
          let tid: string | null = null;
          try {
            const r = await api(url(), 'POST', '/v1/shipment/create', ownerKey, {
              ...readmeShipment(courierEmail),
              orderId: `K${round}-${n++}`,
            });
            if (r.status === 201) tid = r.body.payload.tid as string;
          } catch {
            unacknowledged++;
          }
          if (!tid) return;
          acked.shipments.push(tid);
          const proof = { recipientName: 'Rita Receiver', signature: TINY_PNG, photo: TINY_PNG };
          if (
            await tryCall(url(), '/v1/shipment/update', courierToken, {
              tid,
              status: 'Delivered',
              location: 'Front door',
              lat: 34.03,
              long: -118.48,
              proof,
            })
          )
            acked.delivered.push(tid);
        }),
      ];
      // The kill lands at a random moment once this round has written something of each kind (so a busy machine
      // makes the rounds longer, not the checks emptier): after 1-8 adds, a top-up, its import (every third round)
      // and a delivery (every other round), then 0-300 ms more.
      const before = Object.fromEntries(Object.entries(acked).map(([k, v]) => [k, v.length])) as Record<keyof Acked, number>;
      const wantAdds = 1 + Math.floor(Math.random() * 8);
      const progressed = () =>
        acked.adds.length - before.adds >= wantAdds &&
        acked.topups.length > before.topups &&
        (round % 3 !== 0 || acked.imports.length > before.imports) &&
        (round % 2 === 1 || acked.delivered.length > before.delivered);
      for (const until = Date.now() + 120_000; !progressed() && Date.now() < until;) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 300)));
      await server.kill9();
      stop = true;
      await Promise.all(loops);
      const t0 = Date.now();
      await server.restart(); // throws (and fails the test) if it does not come up
      startups.push(Date.now() - t0);
      if (process.env.EMBEDDED_KILLS_LOG)
        (await import('node:fs')).appendFileSync(
          process.env.EMBEDDED_KILLS_LOG,
          `round ${round}: restarted in ${Date.now() - t0} ms; ${JSON.stringify(Object.fromEntries(Object.entries(acked).map(([k, v]) => [k, v.length])))}\n`,
        );
    }
    await server.kill9();
    // Node's compile cache is written once start-up has compiled everything, not only at a clean exit, which no
    // process here reached: each restart read the application's modules from it instead of compiling them again.
    expect(readdirSync(env.NODE_COMPILE_CACHE, { recursive: true }).length, 'compile cache left by killed processes').toBeGreaterThan(100);
    console.info(
      `${KILLS} kills: acknowledged ${acked.adds.length} adds, ${acked.imports.length} imported rows, ${acked.topups.length} top-ups, ` +
        `${acked.shipments.length} shipments, ${acked.delivered.length} deliveries; ${unacknowledged} requests cut by a kill; ` +
        `restarts ${Math.min(...startups)}-${Math.max(...startups)} ms`,
    );
    // The load must really have written, or the checks below say nothing.
    if (refusals.size) console.info('refused:', Object.fromEntries(refusals));
    expect(acked.adds.length).toBeGreaterThanOrEqual(KILLS);
    expect(acked.imports.length).toBeGreaterThanOrEqual(50 * Math.ceil(KILLS / 3));
    expect(acked.topups.length).toBeGreaterThanOrEqual(KILLS);
    expect(acked.delivered.length).toBeGreaterThanOrEqual(KILLS / 2);

    // Read the data directory the last process left, as the next start would.
    const database = await openDatabase({ dataDir });
    const rows = async <T>(q: ReturnType<typeof sql>) => ((await database.db.execute(q)) as unknown as { rows: T[] }).rows;
    try {
      const trackingTids = new Set((await rows<{ tid: string }>(sql`select tid from trackings`)).map((r) => r.tid));
      const missingAdds = acked.adds.filter((t) => !trackingTids.has(t));
      const missingImports = acked.imports.filter((t) => !trackingTids.has(t));
      expect(missingAdds, 'acknowledged adds lost').toEqual([]);
      expect(missingImports, 'acknowledged imported rows lost').toEqual([]);

      // Each tracking has its one charge and each charge its tracking.
      const uncharged = await rows(
        sql`select t.tid from trackings t where not exists (select 1 from ledger_entries l where l.kind = 'tracking' and l.ref = t.id::text)`,
      );
      // A shipment's charge is booked under the same kind, its ref 'shm:<shipment id>'.
      const orphanCharges = await rows(sql`
        select l.ref from ledger_entries l where l.kind = 'tracking'
        and not exists (select 1 from trackings t where t.id::text = l.ref)
        and not exists (select 1 from shipments s where 'shm:' || s.id::text = l.ref)`);
      const unchargedShipments = await rows(
        sql`select s.tid from shipments s where not exists (select 1 from ledger_entries l where l.kind = 'tracking' and l.ref = 'shm:' || s.id::text)`,
      );
      expect(unchargedShipments, 'shipments without a charge').toEqual([]);
      expect(uncharged, 'trackings without a charge').toEqual([]);
      expect(orphanCharges, 'charges without a tracking').toEqual([]);

      // Every acknowledged top-up is credited once.
      const credited = await rows<{ key: string; status: string; credits: number }>(sql`
        select p.idempotency_key as key, p.status, (select count(*)::int from ledger_entries l where l.kind = 'topup' and l.ref = p.id::text) as credits
        from payments p where p.kind = 'topup'`);
      const byKey = new Map(credited.map((r) => [r.key, r]));
      for (const key of acked.topups) expect(byKey.get(key), key).toMatchObject({ status: 'submitted_for_settlement', credits: 1 });
      for (const p of credited) expect(p.credits, `payment ${p.key} (${p.status})`).toBe(p.status === 'submitted_for_settlement' ? 1 : 0);
      // A sale the gateway made whose credit a kill cut off is left for the sweep (pending or unknown), never lost.
      const stranded = await rows<{ status: string }>(sql`
        select p.status from sandbox_sales s join payments p on p.id::text = s.order_id
        where p.status not in ('submitted_for_settlement', 'pending', 'unknown', 'processing')`);
      expect(stranded, 'sales at the gateway neither credited nor left for the sweep').toEqual([]);

      // Acknowledged shipments exist; acknowledged deliveries have their checkpoint with its proof; no Delivered
      // checkpoint is without its proof.
      const shipments = await rows<{ tid: string; status: string }>(sql`select tid, status from shipments`);
      const shipmentStatus = new Map(shipments.map((s) => [s.tid, s.status]));
      expect(
        acked.shipments.filter((t) => !shipmentStatus.has(t)),
        'acknowledged shipments lost',
      ).toEqual([]);
      for (const t of acked.delivered) expect(shipmentStatus.get(t), t).toBe('Delivered');
      const deliveredCps = await rows<{ tid: string; name: string | null; signature: boolean; photo: boolean }>(sql`
        select s.tid, c.pod_recipient_name as name, c.pod_signature is not null as signature, c.pod_photo is not null as photo
        from shipment_checkpoints c join shipments s on s.id = c.shipment_id where c.status = 'Delivered'`);
      const cpByTid = new Map(deliveredCps.map((c) => [c.tid, c]));
      for (const t of acked.delivered) expect(cpByTid.get(t), t).toMatchObject({ name: 'Rita Receiver', signature: true, photo: true });
      for (const c of deliveredCps) expect(c, c.tid).toMatchObject({ name: 'Rita Receiver', signature: true, photo: true });
      expect(
        shipments.filter((s) => s.status === 'Delivered' && !cpByTid.has(s.tid)),
        'Delivered without its checkpoint',
      ).toEqual([]);

      // Each balance equals its ledger.
      const drift = await rows(sql`
        select b.user_id, b.balance_cents, coalesce((select sum(amount_cents) from ledger_entries l where l.user_id = b.user_id), 0) as ledger
        from billing_accounts b
        where b.balance_cents <> coalesce((select sum(amount_cents) from ledger_entries l where l.user_id = b.user_id), 0)`);
      expect(drift, 'balance differs from ledger').toEqual([]);
    } finally {
      await database.close();
    }
  }, 1_800_000);
});
