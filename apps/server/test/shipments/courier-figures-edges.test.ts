// The company's own couriers' figures (decision 134) at the edges of the period, as the statement reads them since
// decision 147: one pass over the period's scans with a margin of two days for the days shipments went out. The
// page's figures are proved by performance-figures.test.ts, unchanged; this file proves the margin: a delivery at the
// start of a period that is not a local midnight, out for delivery earlier that local day, before the period.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { courierPerformance } from '../../src/modules/shipments/shipments.repository.ts';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { userIdOf } from '../trackings/fixtures.ts';
import { HOUR, newShipment, type ShipmentScan } from '../rows-by-sql.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

describe('own couriers: a delivery the day it went out, at the edges of the period', () => {
  it('counts a going out of the same local day outside the period, not one of the day before', async () => {
    const co = await signUp(env.app);
    const uc = await userIdOf(env, co.email);
    const dana = '00000000-0000-4000-8000-0000000ed9e0';
    const shipment = (scans: ShipmentScan[]) => newShipment(env, uc, scans, { [dana]: 'Dana' });
    // 2026-10-14 in New York (UTC-4): the period starts at 18:00 local time (22:00 UTC), not at midnight.
    const from = Date.parse('2026-10-14T22:00:00Z');
    const to = from + 48 * HOUR;
    // Out at 08:00 local (before the period), delivered at 19:00 local the same day (in it): on time.
    await shipment([
      ['OutForDelivery', Date.parse('2026-10-14T12:00:00Z'), dana],
      ['Delivered', from + HOUR, dana],
    ]);
    // Out by the office at 23:30 local the day before, delivered at 19:30 local: not the same day.
    await shipment([
      ['OutForDelivery', Date.parse('2026-10-14T03:30:00Z'), null],
      ['Delivered', from + 1.5 * HOUR, dana],
    ]);
    // Delivered at 17:30 local on the period's last day, out (by the office) at 20:30 local the same day, after the
    // period's end (18:00 local): the same day, so on time as the rule reads.
    await shipment([
      ['Delivered', to - 0.5 * HOUR, dana],
      ['OutForDelivery', to + 2.5 * HOUR, null],
    ]);
    // A failed attempt on the day between.
    await shipment([
      ['OutForDelivery', from + 10 * HOUR, dana],
      ['FailAttempt', from + 11 * HOUR, dana],
    ]);
    const figures = await courierPerformance(env.ctx.db, uc, new Date(from), new Date(to), 'America/New_York');
    expect(figures).toEqual([{ courierId: dana, name: 'Dana', daysWorked: 3, stops: 4, delivered: 3, onTime: 2, failed: 1 }]);
  });
});
