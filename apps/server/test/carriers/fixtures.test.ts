// Our own carrier responses (fixtures/MANIFEST.json: written from the carriers' documented response shapes, values
// invented) give the results the manifest expects, served by a fake carrier on loopback and read through the real
// client. The third-party recordings these replace are checked by recorded-samples.shared.test.ts, outside `npm test`.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CourierSlug } from '../../src/modules/carriers/types.ts';
import { fixturesDir, readFixture } from './helpers.ts';
import { describeManifest, useFakeCarrier, type Expected, type ManifestCase } from './manifest-check.ts';

type Entry = { file: string; carrier: CourierSlug; http_status: number; served_by: 'track' | 'token'; expected: Expected[] };
const manifest = JSON.parse(fs.readFileSync(path.join(fixturesDir, 'MANIFEST.json'), 'utf8')) as { samples: Entry[] };
const cases: ManifestCase[] = manifest.samples.map((s) => ({
  name: s.file.split('/').pop()!,
  file: s.file,
  carrier: s.carrier,
  status: s.http_status,
  servedBy: s.served_by,
  expected: s.expected,
}));

describe('the fixtures manifest', () => {
  it('lists 38 responses covering every status and error kind on every carrier', () => {
    expect(cases.length).toBe(38);
    const statuses = new Set(cases.flatMap((c) => c.expected.map((e) => `${c.carrier}:${e.normalized_status ?? e.error_kind}`)));
    for (const carrier of ['ups', 'usps', 'fedex', 'canadapost']) {
      for (const s of ['Delivered', 'Pending']) expect(statuses, `${carrier} ${s}`).toContain(`${carrier}:${s}`);
    }
    for (const s of ['InfoReceived', 'InTransit', 'OutForDelivery', 'FailAttempt', 'Exception'])
      expect(statuses, s).toContain(`fedex:${s}`);
    for (const kind of ['auth', 'malformed', 'carrier-down'])
      expect(
        [...statuses].some((x) => x.endsWith(`:${kind}`)),
        kind,
      ).toBe(true);
    // Every file in the folder is in the manifest, and every manifest entry exists.
    for (const c of cases) expect(fs.existsSync(path.join(fixturesDir, c.file)), c.file).toBe(true);
  });
});

describeManifest('own carrier responses (fixtures/MANIFEST.json)', fixturesDir, cases);

describe('response details the manifest does not spell out', () => {
  const carrier = useFakeCarrier();

  it('UPS: UTC from gmtDate/gmtTime, origin and destination from packageAddress, newest first', async () => {
    carrier.fake.script('ups', '1Z8R3A116790452213', { status: 200, body: readFixture('ups/ups_in_transit_customs_type_x.json') });
    const [r] = await carrier.client.track('ups', ['1Z8R3A116790452213']);
    if (!r?.ok) throw new Error('expected ok');
    expect(r.checkpoints[0]!.time).toBe('2025-03-04T14:30:15.000Z');
    expect(r.checkpoints[0]!.status).toBe('InTransit');
    expect(r.checkpoints.at(-1)!.status).toBe('InfoReceived');
    expect(r.origin).toBe('Rotterdam, 3089, NL');
    expect(r.destination).toBe('Toronto, ON, M5V2T6, CA');
    const times = r.checkpoints.map((c) => Date.parse(c.time));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('UPS: local date and time with gmtOffset when there is no gmtDate; an unreadable date is skipped', async () => {
    carrier.fake.script('ups', '1Z6V77W20488910322', { status: 200, body: readFixture('ups/ups_odd_values.json') });
    const [r] = await carrier.client.track('ups', ['1Z6V77W20488910322']);
    if (!r?.ok) throw new Error('expected ok');
    expect(r.checkpoints.map((c) => c.time)).toEqual(['2025-08-20T14:15:00.000Z', '2025-08-18T22:00:00.000Z']);
    expect(r.checkpoints[0]!.message).toBe('Loaded on Delivery Vehicle');
    expect(r.origin).toBeNull();
    expect(r.expected).toBeNull();
  });

  it('USPS: local time + GMTOffset wins over an inconsistent GMTTimestamp; an event without GMT fields borrows its neighbour; expected date kept while in transit', async () => {
    carrier.fake.script('usps', '9205590164917312751089', { status: 200, body: readFixture('usps/usps_moving_through_network.json') });
    const [r] = await carrier.client.track('usps', ['9205590164917312751089']);
    if (!r?.ok) throw new Error('expected ok');
    expect(r.checkpoints.map((c) => c.time)).toEqual([
      '2025-10-15T08:12:00.000Z',
      '2025-10-15T02:40:00.000Z',
      '2025-10-14T20:02:00.000Z',
      '2025-10-13T14:30:00.000Z',
    ]);
    expect(r.checkpoints.map((c) => c.status)).toEqual(['InTransit', 'InTransit', 'InTransit', 'InfoReceived']);
    expect(r.expected).toBe('2025-10-17');
    expect(r.origin).toBe('SAINT PAUL, MN, 55101');
    expect(r.destination).toBe('FARGO, ND, 58102');
  });

  it('FedEx: trusts latestStatusDetail.code over derived fields (OD with derivedCode IT; RS scan derived DL), both numbers in one request', async () => {
    carrier.fake.script('fedex', '770312556841', {
      status: 200,
      body: readFixture('fedex/fedex_out_for_delivery_derived_in_transit.json'),
    });
    carrier.fake.script('fedex', '781177455026', { status: 200, body: readFixture('fedex/fedex_returning_to_shipper.json') });
    const [ofd, rts] = await carrier.client.track('fedex', ['770312556841', '781177455026']);
    expect(ofd?.ok && ofd.status).toBe('OutForDelivery');
    expect(rts?.ok && rts.status).toBe('Exception');
    expect(rts?.ok && rts.checkpoints[0]!.status).toBe('Exception');
    expect(ofd?.ok && ofd.checkpoints[0]!.time).toBe('2025-07-09T11:35:00.000Z');
    expect(carrier.fake.fedexBatchSizes).toEqual([2]);
  });

  it('FedEx: of two results for one number, the one with the newest scan', async () => {
    carrier.fake.script('fedex', '392601178444', { status: 200, body: readFixture('fedex/fedex_delivered_duplicate_results.json') });
    const [r] = await carrier.client.track('fedex', ['392601178444']);
    if (!r?.ok) throw new Error('expected ok');
    expect(r.checkpoints[0]!.time).toBe('2025-10-02T15:48:00.000Z');
    expect(r.checkpoints.at(-1)!.location).toBe('HOUSTON, TX, 77032, US');
  });

  it('Canada Post: EST converted to UTC, French text decoded, destination postal code, the track-v2 media type', async () => {
    carrier.fake.script('canadapost', '4006417219873362', { status: 200, body: readFixture('canadapost/canadapost_delivered_fr.xml') });
    const [r] = await carrier.client.track('canadapost', ['4006417219873362']);
    if (!r?.ok) throw new Error('expected ok');
    expect(r.checkpoints[0]!.message).toBe('Article livré avec succès');
    expect(r.checkpoints[2]!.message).toBe("Article traité à l'installation postale");
    expect(r.checkpoints[0]!.time).toBe('2025-12-02T16:59:59.000Z');
    expect(r.destination).toBe('H2X1Y4');
    expect(carrier.fake.lastHeaders.canadapost?.accept).toBe('application/vnd.cpc.track-v2+xml');
  });

  // Decision 122: the day as the carrier names it; the window's bounds in the carrier's local time with its offset.
  it('each carrier: the estimate with its window, normalised (date, from, to, source carrier)', async () => {
    carrier.fake.script('ups', '1Z8R3A116790452213', { status: 200, body: readFixture('ups/ups_in_transit_customs_type_x.json') });
    carrier.fake.script('usps', '9205590164917312751089', { status: 200, body: readFixture('usps/usps_moving_through_network.json') });
    carrier.fake.script('fedex', '61299998820314578230', { status: 200, body: readFixture('fedex/fedex_in_transit_smartpost.json') });
    carrier.fake.script('canadapost', '7023210039414611', { status: 200, body: readFixture('canadapost/canadapost_out_for_delivery.xml') });
    const est = async (c: CourierSlug, tid: string) => {
      const [r] = await carrier.client.track(c, [tid]);
      if (!r?.ok) throw new Error(`expected ok: ${JSON.stringify(r)}`);
      const e = r.estimatedDelivery;
      expect(e?.source).toBe('carrier');
      expect(Number.isNaN(Date.parse(e!.updatedAt))).toBe(false);
      return { date: e!.date, from: e!.from, to: e!.to };
    };
    // UPS: SDD with the deliveryTime window (HHMMSS local; the newest scan's offset).
    expect(await est('ups', '1Z8R3A116790452213')).toEqual({
      date: '2025-03-07',
      from: '2025-03-07T10:00:00-05:00',
      to: '2025-03-07T14:00:00-05:00',
    });
    // USPS: expectedDeliveryTimeStamp (local midnight: a day) with the predicted window's times.
    expect(await est('usps', '9205590164917312751089')).toEqual({
      date: '2025-10-17',
      from: '2025-10-17T11:30:00-05:00',
      to: '2025-10-17T15:30:00-05:00',
    });
    // FedEx: ESTIMATED_DELIVERY with estimatedDeliveryTimeWindow.window.
    expect(await est('fedex', '61299998820314578230')).toEqual({
      date: '2025-06-25',
      from: '2025-06-25T09:00:00-04:00',
      to: '2025-06-25T17:00:00-04:00',
    });
    // Canada Post: changed-expected-date (the revision) over expected-delivery-date; a day, no window.
    expect(await est('canadapost', '7023210039414611')).toEqual({ date: '2025-06-06', from: null, to: null });
  });

  it('UPS: RDD over SDD; a DEL deliveryTime is the delivery, not a window; a window ending before it begins is dropped', async () => {
    const body = JSON.parse(readFixture('ups/ups_in_transit_customs_type_x.json')) as {
      trackResponse: { shipment: Array<{ package: Array<Record<string, unknown>> }> };
    };
    const pkg = body.trackResponse.shipment[0]!.package[0]!;
    pkg.deliveryDate = [
      { type: 'SDD', date: '20250307' },
      { type: 'RDD', date: '20250310' },
    ];
    pkg.deliveryTime = { type: 'EDW', startTime: '150000', endTime: '090000' };
    carrier.fake.script('ups', '1Z8R3A116790452213', { status: 200, body: JSON.stringify(body) });
    const [r] = await carrier.client.track('ups', ['1Z8R3A116790452213']);
    expect(r?.ok && r.estimatedDelivery).toMatchObject({ date: '2025-03-10', from: null, to: null, source: 'carrier' });
    pkg.deliveryTime = { type: 'DEL', endTime: '142205' };
    carrier.fake.script('ups', '1Z8R3A116790452213', { status: 200, body: JSON.stringify(body) });
    const [r2] = await carrier.client.track('ups', ['1Z8R3A116790452213']);
    expect(r2?.ok && r2.estimatedDelivery).toMatchObject({ date: '2025-03-10', from: null, to: null });
  });
});
