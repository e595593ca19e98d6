// A burst of proof photos must not stall logins (attack of 2026-11-26, finding 1): image decoding and password
// hashing share libuv's thread pool. Timed: it compares a login during the burst with a login of the same run.
import { pngOf } from '../shipments/png.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestEnv, type TestEnv } from '../helpers.ts';
import { TINY_PNG, company, courier, createShipment, readmeShipment } from '../shipments/fixtures.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ PROOF_UPLOADS_PER_HOUR: '1000', LOGIN_MAX_ATTEMPTS: '1000' });
});
afterAll(() => env?.close());

describe('image work and logins', () => {
  it('a login during 8 parallel heavy photo uploads ends before the uploads do, and stays near a login of the same run', async () => {
    const owner = await company(env.app);
    const rider = await courier(env.app, owner.session);
    const s = await createShipment(env.app, owner.session, readmeShipment(rider.email));
    const photo = `data:image/png;base64,${pngOf(7000, 7000, { bitDepth: 8 }).toString('base64')}`;
    const login = async () => {
      const t0 = performance.now();
      const r = await call(env.app, 'POST', '/v1/user/general/login', { body: { email: owner.email, password: 'password123' } });
      expect(r.statusCode).toBe(200);
      return performance.now() - t0;
    };
    // Baseline: the slowest of three logins on this machine now.
    await login();
    const baseline = Math.max(await login(), await login(), await login());

    const t0 = performance.now();
    const done: number[] = [];
    const uploads = Array.from({ length: 8 }, () =>
      call(env.app, 'POST', '/v1/shipment/update', {
        token: rider.session,
        body: { tid: s.tid, status: 'Delivered', location: 'Door', proof: { recipientName: 'Bob', signature: TINY_PNG, photo } },
      }).then((r) => {
        done.push(performance.now() - t0);
        return r.statusCode;
      }),
    );
    await new Promise((r) => setTimeout(r, 100));
    const during = await login();
    const loginEnded = performance.now() - t0;
    const statuses = await Promise.all(uploads);
    const lastUpload = Math.max(...done);
    console.info(
      `login baseline ${baseline.toFixed(0)} ms, during the uploads ${during.toFixed(0)} ms (ended at ${loginEnded.toFixed(0)} ms); uploads ended ${done.map((d) => d.toFixed(0)).join(', ')} ms`,
    );
    expect(statuses.every((c) => c === 200 || c === 503)).toBe(true);
    expect(statuses.filter((c) => c === 200).length).toBeGreaterThan(0);
    // Ordering: the uploads wait their turn for the image slot; the login does not wait for them.
    expect(loginEnded).toBeLessThan(lastUpload);
    // And relative to the baseline, with a wide margin for a busy machine.
    expect(during).toBeLessThan(baseline * 4 + 1000);
  });
});
