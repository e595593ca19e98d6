// The carrier sandbox through the production adapters: journeys unfold with the injected clock, at the pace.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carrierConfigFromEnv, createCarrierClient, type CarrierClient } from '../carriers.ts';
import type { CourierSlug, TrackResult } from '../types.ts';
import {
  createCarrierSandboxHandler,
  describeSandboxJourney,
  sandboxPaceFromEnv,
  sandboxPollIntervalMs,
  startCarrierSandbox,
} from './carrier-sandbox.ts';
import { journeyDurationMs } from './journeys.ts';
import { detectCarriers } from '../detect.ts';

// Example numbers (valid check digits) per journey, as listed in docs/carriers.md.
export const EXAMPLES: Record<CourierSlug, Record<'delivered' | 'fail-attempt' | 'exception' | 'not-found', string>> = {
  ups: {
    delivered: '1Z5R89390350075608',
    'fail-attempt': '1Z5R89390350075626',
    exception: '1Z5R89390350075813',
    'not-found': '1Z5R89390350075653',
  },
  usps: {
    delivered: '9400111206206406260015',
    'fail-attempt': '9400111206206406260008',
    exception: '9400111206206406260053',
    'not-found': '9400111206206406260251',
  },
  fedex: { delivered: '986578788800', 'fail-attempt': '986578788855', exception: '986578788914', 'not-found': '986578788925' },
  canadapost: {
    delivered: '0073938000549204',
    'fail-attempt': '0073938000549211',
    exception: '0073938000549242',
    'not-found': '0073938000549303',
  },
};

const statusOf = (r: TrackResult | undefined) => (r?.ok ? r.status : r ? `error:${r.error.kind}` : 'none');

let clock = Date.parse('2026-01-15T15:00:00Z');
let sandbox: { url: string; close(): Promise<void> };
let client: CarrierClient;

beforeAll(async () => {
  sandbox = await startCarrierSandbox({ pace: 1, now: () => clock });
  client = createCarrierClient(carrierConfigFromEnv({}, sandbox.url));
});
afterAll(async () => {
  await sandbox.close();
});

describe('carrier sandbox', () => {
  it('every carrier without credentials is a sandbox carrier', () => {
    for (const c of ['ups', 'usps', 'fedex', 'canadapost'] as const) expect(client.isSandbox(c)).toBe(true);
  });

  for (const courier of ['ups', 'usps', 'fedex', 'canadapost'] as const) {
    it(`${courier}: a delivered journey plays InfoReceived → InTransit → OutForDelivery → Delivered in a few minutes`, async () => {
      const tid = EXAMPLES[courier].delivered!;
      expect(describeSandboxJourney(tid).journey).toBe('delivered');
      const start = clock;
      const seen: string[] = [];
      for (let t = 0; t <= 6 * 60_000; t += 10_000) {
        clock = start + t;
        const [r] = await client.track(courier, [tid]);
        const s = statusOf(r);
        if (seen[seen.length - 1] !== s) seen.push(s);
      }
      expect(seen).toEqual(['InfoReceived', 'InTransit', 'OutForDelivery', 'Delivered']);
      const [last] = await client.track(courier, [tid]);
      if (!last?.ok) throw new Error('expected ok');
      expect(last.checkpoints.length).toBe(6);
      expect(last.checkpoints[0]!.time).toBe(new Date(Math.floor((start + journeyDurationMs(tid)) / 1000) * 1000).toISOString());
      expect(last.destination).toBeTruthy();
      expect(journeyDurationMs(tid)).toBeLessThan(6 * 60_000);
    });
  }

  for (const courier of ['ups', 'usps', 'fedex', 'canadapost'] as const) {
    it(`${courier}: journeys with a failed attempt, an exception and a not-found number (documented examples)`, async () => {
      const ex = EXAMPLES[courier];
      for (const j of ['delivered', 'fail-attempt', 'exception', 'not-found'] as const) {
        expect(describeSandboxJourney(ex[j]).journey).toBe(j);
        expect(detectCarriers(ex[j])[0]).toMatchObject({ courier, checkDigitValid: true });
      }
      const start = clock;
      const tids = [ex['fail-attempt'], ex.exception, ex['not-found']];
      const history: string[][] = [[], [], []];
      for (let t = 0; t <= 7 * 60_000; t += 5_000) {
        clock = start + t;
        const rs = await client.track(courier, tids);
        rs.forEach((r, i) => {
          const s = statusOf(r);
          if (history[i]!.at(-1) !== s) history[i]!.push(s);
        });
      }
      expect(history[0]).toEqual(['InfoReceived', 'InTransit', 'OutForDelivery', 'FailAttempt', 'OutForDelivery', 'Delivered']);
      expect(history[1]).toEqual(['InfoReceived', 'InTransit', 'Exception']);
      expect(history[2]).toEqual(['error:not-found']);
    });
  }

  it('the anchor is the first question; another number starts its own clock', async () => {
    const [a] = await client.track('usps', ['9400111206206406260787']);
    clock += 20_000;
    const [b] = await client.track('ups', ['1Z879E930346834440']);
    expect(a?.ok && a.checkpoints.length).toBe(1);
    expect(b?.ok && b.checkpoints.length).toBe(1);
  });

  it('pace scales the journey: 0.01 plays it 100× faster', async () => {
    let t = 0;
    const fast = await startCarrierSandbox({ pace: 0.01, now: () => t });
    try {
      const c = createCarrierClient(carrierConfigFromEnv({}, fast.url));
      const tid = EXAMPLES.ups.delivered!;
      await c.track('ups', [tid]);
      t = journeyDurationMs(tid, 0.01) + 1;
      expect(t).toBeLessThan(3000);
      const [r] = await c.track('ups', [tid]);
      expect(statusOf(r)).toBe('Delivered');
    } finally {
      await fast.close();
    }
    expect(sandboxPollIntervalMs(1)).toBeLessThan(24_000 / 2 + 1);
    expect(sandboxPollIntervalMs(0.01)).toBe(120);
    expect(sandboxPaceFromEnv({ CARRIER_SANDBOX_PACE: '0.01' })).toBe(0.01);
    expect(sandboxPaceFromEnv({ CARRIER_SANDBOX_PACE: 'fast' })).toBe(1);
  });

  it('serves the real shapes: Canada Post refuses a wrong Accept, track calls need a token', async () => {
    const cp = await fetch(`${sandbox.url}/vis/track/pin/0073938000549297/detail`, {
      headers: { authorization: 'Basic eDp5', accept: '*/*' },
    });
    expect(cp.status).toBe(406);
    const ups = await fetch(`${sandbox.url}/api/track/v1/details/1Z5R89390357567127`);
    expect(ups.status).toBe(401);
    const usps = await fetch(`${sandbox.url}/tracking/v3r2/tracking`, {
      method: 'POST',
      headers: { authorization: 'Bearer sbx.test', 'content-type': 'application/json' },
      body: JSON.stringify([{ trackingNumber: '9400111206206406260787' }]),
    });
    expect(Array.isArray(await usps.json())).toBe(true);
  });

  it('the raw node:http handler serves the same routes', async () => {
    const server = http.createServer(createCarrierSandboxHandler({ pace: 1, now: () => clock }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const c = createCarrierClient(carrierConfigFromEnv({}, url));
      const [r] = await c.track('canadapost', [EXAMPLES.canadapost.delivered!]);
      expect(r?.ok).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

// Runs last: it plays the example numbers' journeys to their end.
describe('carrier sandbox estimates', () => {
  // Decision 122: each carrier states the promised window in its own fields, and revises it after a failed attempt.
  for (const courier of ['ups', 'usps', 'fedex', 'canadapost'] as const) {
    it(`${courier}: the estimate has a window that holds the delivery, and is revised past the first promise after a failed attempt`, async () => {
      const start = clock;
      const at = async (tid: string, ms: number) => {
        clock = start + ms;
        const [r] = await client.track(courier, [tid]);
        if (!r?.ok) throw new Error(`expected ok: ${JSON.stringify(r)}`);
        return r;
      };
      // Numbers of their own (the examples' journeys were played above).
      const pick = (journey: string) => {
        for (let n = 0; ; n++) {
          const tid = `${EXAMPLES[courier].delivered.slice(0, 8)}${String(n).padStart(8, '0')}`;
          if (describeSandboxJourney(tid).journey === journey) return tid;
        }
      };
      const delivered = pick('delivered');
      const first = (await at(delivered, 0)).estimatedDelivery;
      expect(first?.source).toBe('carrier');
      if (courier === 'canadapost') expect([first?.from, first?.to]).toEqual([null, null]);
      else expect(Date.parse(first!.to!)).toBeGreaterThan(Date.parse(first!.from!));
      const done = await at(delivered, 6 * 60_000);
      expect(done.status).toBe('Delivered');
      expect(done.estimatedDelivery ?? null).toBeNull();
      if (courier !== 'canadapost') {
        const deliveredAt = Date.parse(done.checkpoints[0]!.time);
        expect(deliveredAt).toBeGreaterThanOrEqual(Date.parse(first!.from!));
        expect(deliveredAt).toBeLessThanOrEqual(Date.parse(first!.to!));
      }

      const tid = pick('fail-attempt');
      clock = start + 7 * 60_000;
      const s2 = clock;
      const before = (await at(tid, 7 * 60_000)).estimatedDelivery!;
      let after = before;
      for (let t = 0; t <= 6 * 60_000 && after === before; t += 10_000) {
        const r = await at(tid, 7 * 60_000 + t);
        if (r.status === 'FailAttempt') after = r.estimatedDelivery!;
      }
      expect(after).not.toBe(before);
      if (courier === 'canadapost') expect(after.date).toBe(before.date);
      else expect(Date.parse(after.to!)).toBeGreaterThan(Date.parse(before.to!));
      expect(clock).toBeGreaterThan(s2);
    });
  }
});

describe('carrier sandbox services', () => {
  it('each carrier names the service in its own field, and the adapters read it (two services a carrier, decision 158)', async () => {
    // A sandbox of its own: asking about a number starts its journey, which the tests above time.
    const own = await startCarrierSandbox({ pace: 1, now: () => clock });
    const ownClient = createCarrierClient(carrierConfigFromEnv({}, own.url));
    const seen: Record<string, Set<string | null>> = {};
    for (const courier of ['ups', 'usps', 'fedex', 'canadapost'] as const) {
      seen[courier] = new Set();
      for (const journey of ['delivered', 'fail-attempt', 'exception'] as const) {
        const [r] = await ownClient.track(courier, [EXAMPLES[courier][journey]]);
        seen[courier].add(r?.ok ? (r.service ?? null) : 'error');
      }
    }
    await own.close();
    const all = Object.values(seen).flatMap((s) => [...s]);
    expect(all.every((s) => typeof s === 'string' && s !== 'error' && s.length > 0)).toBe(true);
    expect(all.filter((s) => s!.includes('<') || s!.includes('&'))).toEqual([]);
    expect([...seen.usps!].every((s) => s === 'USPS Ground Advantage' || s === 'Priority Mail')).toBe(true);
    expect([...seen.ups!].every((s) => s === 'UPS Ground' || s === 'UPS 2nd Day Air')).toBe(true);
  });
});
