// A real crash: the server (src/main.ts, as `npm start` runs it) is killed with SIGKILL while it is asking a
// carrier about a tracking, then started again on the same data directory. The interrupted refresh must resume
// within a minute, not sit frozen behind a long lease. In the slow set (`npm run test:slow`, run by CI): two
// real server starts and a lease to wait out take most of a minute. The live worker's side is lease.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeCarrier, CREDS, type FakeCarrier } from '../carriers/fake-carrier.ts';
import { eventually } from '../helpers.ts';
import { api, Cluster, signUpAt } from '../scale/cluster.ts';
import { LEASE_MS } from '../../src/modules/trackings/refresh.ts';
import { EX } from './fixtures.ts';

const cluster = new Cluster();
const dirs: string[] = [];
let fake: FakeCarrier | undefined;

afterAll(async () => {
  await cluster.stopAll();
  await fake?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('refresh after a crash', () => {
  it('trackings whose refresh was interrupted by kill -9 are refreshed again within a minute of the restart', async () => {
    fake = await startFakeCarrier();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'shiptrail-crash-'));
    dirs.push(dataDir);
    const common = { DATA_DIR: dataDir, SESSION_SECRET: 'crash-test-secret-crash-test-secret-0123', CARRIER_SANDBOX_PACE: '0.05' };
    const tids = [EX.ups.delivered, EX.ups.failAttempt];
    // UPS answers the track calls of the first server never: the kill lands while they are in flight.
    for (const tid of tids) fake.script('ups', tid, { status: 200, body: '{}', delayMs: 600_000 });

    const first = await cluster.start('all', {
      ...common,
      UPS_BASE_URL: fake.url,
      UPS_CLIENT_ID: CREDS.id,
      UPS_CLIENT_SECRET: CREDS.secret,
    });
    const { key } = await signUpAt(first.url, 'crash@example.com');
    for (const tid of tids) expect((await api(first.url, 'POST', '/v1/trackings/add', key, { tid, courier: 'ups' })).status).toBe(201);
    await eventually(async () => (fake!.trackRequests.ups >= 1 ? true : null), 30_000, 50);
    await first.kill9();
    const killedAt = Date.now();

    // The same data directory, UPS now served by the built-in sandbox (no credentials).
    const second = await cluster.start('all', common);
    const readyAt = Date.now();
    const resumedAt = await eventually(
      async () => {
        const r = await api(second.url, 'GET', '/v1/trackings/get?numRecords=10', key);
        const rows = r.body.payload as Array<{ tid: string; status: string }>;
        return rows.length === tids.length && rows.every((t) => t.status !== 'Pending') ? Date.now() : null;
      },
      75_000,
      250,
    );
    // At most a lease (LEASE_MS after the last renewal) plus a scheduler tick after the kill; the restart's own
    // start-up time overlaps with it, so the bound that matters is the wait once the new server is up.
    console.info(
      `interrupted refreshes resumed ${((resumedAt - killedAt) / 1000).toFixed(1)} s after the kill, ${((resumedAt - readyAt) / 1000).toFixed(1)} s after the restarted server was up (lease ${LEASE_MS / 1000} s)`,
    );
    expect(resumedAt - readyAt).toBeLessThan(60_000);
    expect(resumedAt - killedAt).toBeLessThan(Math.max(60_000, readyAt - killedAt + 30_000));
  }, 360_000);
});
