// A carrier's quota is one budget per carrier and credential for every process: two workers (two carrier
// clients on two database connections) together never exceed it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type Db } from '../../src/db/client.ts';
import { createCarrierClient, type CarrierConfig } from '../../src/modules/carriers/carriers.ts';
import { carrierLimitKey } from '../../src/modules/carriers/carriers.service.ts';
import { createSharedRateLimiter, type RateLimitSetting } from '../../src/modules/carriers/rate-limit.ts';
import { createTestEnv, onPostgres, type TestEnv } from '../helpers.ts';
import { CREDS, startFakeCarrier, type FakeCarrier } from './fake-carrier.ts';

let env: TestEnv;
let fake: FakeCarrier;
let second: Database | undefined;
// The second "process": its own pool on the same PostgreSQL database; PGlite has one connection only.
let dbB: Db;

beforeAll(async () => {
  env = await createTestEnv();
  fake = await startFakeCarrier();
  if (onPostgres) {
    second = await openDatabase({ databaseUrl: env.ctx.database.url!, dataDir: 'memory://', poolSize: 4 });
    dbB = second.db;
  } else dbB = env.ctx.db;
});

afterAll(async () => {
  await second?.close();
  await fake?.close();
  await env?.close();
});

const CP_NUMBERS = ['0073938000549297', '7035114477138472', '4002847016405018', '1371134583769923', '1680678172650919', '7023210039414604'];

function worker(db: Db, rateLimit: RateLimitSetting) {
  const config: CarrierConfig = {
    ups: { baseUrl: fake.url, rateLimit },
    usps: { baseUrl: fake.url, rateLimit },
    fedex: { baseUrl: fake.url, rateLimit },
    canadapost: { baseUrl: fake.url, username: CREDS.user, password: CREDS.pass, rateLimit },
    timeoutMs: 5000,
  };
  return createCarrierClient(config, {
    limiter: (courier, setting, credential) => createSharedRateLimiter(db, carrierLimitKey(courier, credential), setting),
  });
}

describe('carrier quota shared by every process', () => {
  it('two workers with an hourly allowance of 3 send 3 requests between them, and the rest are rate-limited', async () => {
    fake.reset();
    const setting = { limit: 3, intervalMs: 3_600_000, maxWaitMs: 200 };
    const [a, b] = [worker(env.ctx.db, setting), worker(dbB, setting)];
    const results = (await Promise.all([a.track('canadapost', CP_NUMBERS.slice(0, 3)), b.track('canadapost', CP_NUMBERS.slice(3))])).flat();
    expect(fake.trackRequests.canadapost).toBe(3);
    const limited = results.filter((r) => !r.ok && r.error.kind === 'rate-limited');
    expect(limited).toHaveLength(3);
    // The wait it reports is the hour's remainder, not a guess.
    for (const r of limited) expect(!r.ok && r.error.retryAfterMs).toBeGreaterThan(3_500_000);
  });

  it('grants spread over windows: 8 requests at 4 per 500 ms from two workers take a second window and never 5 in one', async () => {
    const key = `test:${Math.random()}`;
    const setting = { limit: 4, intervalMs: 500 };
    const limiters = [createSharedRateLimiter(env.ctx.db, key, setting), createSharedRateLimiter(dbB, key, setting)];
    const t0 = Date.now();
    const times = await Promise.all(Array.from({ length: 8 }, (_, i) => limiters[i % 2]!.acquire().then(() => Date.now() - t0)));
    times.sort((x, y) => x - y);
    expect(times[7]!).toBeGreaterThanOrEqual(450);
    // No window of 500 ms holds more than 4 grants (a small margin for the two clocks: ours and the database's).
    for (let i = 4; i < times.length; i++) expect(times[i]! - times[i - 4]!).toBeGreaterThanOrEqual(450);
  });

  it('a pause one worker was told about (Retry-After) holds the other worker too', async () => {
    const key = `test:${Math.random()}`;
    const setting = { limit: 100, intervalMs: 1000 };
    const [a, b] = [createSharedRateLimiter(env.ctx.db, key, setting), createSharedRateLimiter(dbB, key, setting)];
    await a.acquire();
    // The pause runs from when it was told (its end is stored, not its length), so the other worker's grant comes no
    // earlier than 700 ms after this, however long the moment below took on a busy machine (a margin for two clocks).
    const pausedAt = Date.now();
    a.pauseFor(700);
    // The pause row is written in the background; give it a moment to land before the other worker asks.
    await new Promise((r) => setTimeout(r, 100));
    await b.acquire();
    expect(Date.now() - pausedAt).toBeGreaterThanOrEqual(650);
  });

  it('a changed limit takes effect: the slots follow it', async () => {
    const key = `test:${Math.random()}`;
    await createSharedRateLimiter(env.ctx.db, key, { limit: 5, intervalMs: 60_000 }).acquire();
    const small = createSharedRateLimiter(dbB, key, { limit: 1, intervalMs: 60_000, maxWaitMs: 100 });
    await expect(small.acquire()).rejects.toMatchObject({ kind: 'rate-limited' });
  });
});
