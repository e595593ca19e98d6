// Carrier fidelity: when a carrier lists two events with the same timestamp, its own order (newest first)
// is kept. A Canada Post delivery whose "Item successfully delivered" and "Signature image recorded" share a
// second must show the delivery as the latest checkpoint and as lastCheckPoint, on the list and the public page,
// also after the carrier is asked again. Canada Post is a fake HTTP server on loopback; the real adapter,
// refresh engine and database do the rest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createTestEnv, call, signUp, type TestEnv } from '../helpers.ts';
import { CREDS, startFakeCarrier, type FakeCarrier } from '../carriers/fake-carrier.ts';
import { trackings } from '../../src/db/schema.ts';
import { refreshTrackings } from '../../src/modules/trackings/refresh.ts';
import { EX, add, list } from '../trackings/fixtures.ts';

const PIN = EX.canadapost.delivered;

const occurrence = (id: string, date: string, time: string, description: string, site = 'SAINTE-FOY', province = 'QC') => `
    <occurrence>
      <event-identifier>${id}</event-identifier>
      <event-date>${date}</event-date>
      <event-time>${time}</event-time>
      <event-time-zone>EST</event-time-zone>
      <event-description>${description}</event-description>
      <signatory-name/>
      <event-site>${site}</event-site>
      <event-province>${province}</event-province>
      <event-retail-location-id/>
      <event-retail-name/>
    </occurrence>`;

// Canada Post lists events newest first; the delivery and the signature scan carry the same second.
const deliveredXml = `<?xml version="1.0" encoding="UTF-8"?>
<tracking-detail xmlns="http://www.canadapost.ca/ws/track">
  <pin>${PIN}</pin>
  <active-exists>1</active-exists>
  <expected-delivery-date>2026-03-04</expected-delivery-date>
  <destination-postal-id>G1V2M2</destination-postal-id>
  <service-name>Xpresspost</service-name>
  <signature-image-exists>true</signature-image-exists>
  <significant-events>${[
    occurrence('1496', '2026-03-04', '13:05:12', 'Item successfully delivered'),
    occurrence('20', '2026-03-04', '13:05:12', 'Signature image recorded for Online viewing'),
    occurrence('0174', '2026-03-04', '08:41:09', 'Item out for delivery'),
    occurrence('0100', '2026-03-03', '22:10:55', 'Item processed', 'MONTREAL'),
    occurrence('3000', '2026-03-02', '09:00:00', 'Electronic information submitted by shipper', 'OTTAWA', 'ON'),
  ].join('')}
  </significant-events>
</tracking-detail>`;

let env: TestEnv;
let fake: FakeCarrier;
let user: Awaited<ReturnType<typeof signUp>>;
beforeAll(async () => {
  fake = await startFakeCarrier();
  env = await createTestEnv({ CANADAPOST_BASE_URL: fake.url, CANADAPOST_USERNAME: CREDS.user, CANADAPOST_PASSWORD: CREDS.pass });
  user = await signUp(env.app);
});
afterAll(async () => {
  await env?.close();
  await fake?.close();
});

async function refresh() {
  const [t] = await env.ctx.db.select().from(trackings).where(eq(trackings.tid, PIN));
  return refreshTrackings(env.ctx, [{ id: t!.id, tid: t!.tid, courier: t!.courier }]);
}

describe('checkpoints with the same timestamp keep the carrier order', () => {
  it('a Canada Post delivery shows "Item successfully delivered" first and as lastCheckPoint', async () => {
    fake.script('canadapost', PIN, { status: 200, body: deliveredXml });
    expect((await add(env, user.apiKey, { tid: PIN, courier: 'canadapost' })).statusCode).toBe(201);
    expect((await refresh()).fetched).toBe(1);

    const check = async () => {
      const [t] = (await list(env, user.apiKey)).body.payload;
      expect(t.status).toBe('Delivered');
      expect(t.checkpoints.map((c: { message: string }) => c.message)).toEqual([
        'Item successfully delivered',
        'Signature image recorded for Online viewing',
        'Item out for delivery',
        'Item processed',
        'Electronic information submitted by shipper',
      ]);
      expect(t.checkpoints[0]).toMatchObject({ status: 'Delivered', time: '2026-03-04T18:05:12.000Z' });
      expect(t.lastCheckPoint).toEqual(t.checkpoints[0]);
      const pub = await call(env.app, 'GET', `/v1/track/${t.uid}_${PIN}`);
      expect(pub.body.payload[0].checkpoints).toEqual(t.checkpoints);
      expect(pub.body.payload[0].lastCheckPoint).toEqual(t.checkpoints[0]);
    };
    await check();

    // Asked again (a manual refresh re-reads the same history): nothing is duplicated or reordered.
    await env.ctx.db.update(trackings).set({ nextCheckAt: new Date(), status: 'OutForDelivery' }).where(eq(trackings.tid, PIN));
    await refresh();
    await check();
  });
});
