// A CSV import must never stall the server: other requests interleave with it, and rows the balance
// cannot pay for are refused without database work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMPORT_ROWS } from '@shiptrail/contract';
import { call, createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { balanceCents, setBalance, userIdOf } from '../trackings/fixtures.ts';
import { IMPORT_MAX_PER_WINDOW } from '../../src/modules/trackings/trackings.service.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

const csvOf = (rows: number, prefix: string) =>
  ['tid,courier', ...Array.from({ length: rows }, (_, i) => `${prefix}${String(i).padStart(7, '0')},ups`)].join('\n');
const importCsv = (token: string, csv: string) =>
  call(env.app, 'POST', '/v1/trackings/import', { token, body: csv, headers: { 'content-type': 'text/csv' } });

/**
 * Runs `fn` (an import of the numbers `prefix`0000000...) while requests go out back to back, and says how they
 * interleaved with it, by order, not by the clock, so a busy machine cannot fail it (decision 106):
 * - `during`: GETs answered while the import ran;
 * - `whileValidating`: GETs answered between the import taking its turn (its per-account count, the last
 *   statement before it validates the rows) and its first look for numbers already tracked (the first after).
 *   Validation runs without the database; unless it yields to the event loop between chunks, nothing else is
 *   answered in that stretch.
 * How many milliseconds a GET waits is the bench's figure.
 */
async function interleaving(prefix: string, fn: () => Promise<unknown>, requests: Array<() => Promise<{ body: { code: number } }>>) {
  const events: Array<'get' | 'counted' | 'existing'> = [];
  const target = (env.ctx.database.pglite ?? env.ctx.database.pool) as unknown as Record<string, (...a: unknown[]) => unknown>;
  const query = target.query!;
  const firstNumber = `${prefix}0000000`;
  target.query = function (this: unknown, ...args: unknown[]) {
    let text = '';
    try {
      text = JSON.stringify(args);
    } catch {
      // not ours to read
    }
    const result = query.apply(this, args);
    if (text.includes('import:count:'))
      void (result as Promise<unknown>).then(
        () => events.push('counted'),
        () => undefined,
      );
    if (text.includes(firstNumber)) events.push('existing');
    return result;
  };
  let done = false;
  const loops = requests.map(async (req) => {
    while (!done) {
      // As a request from the network would, each one arrives on a later turn of the event loop.
      await new Promise((resolve) => setTimeout(resolve, 2));
      const r = await req();
      if (!done) events.push('get');
      expect(r.body.code).toBe(200);
    }
  });
  const t0 = performance.now();
  try {
    await fn();
  } finally {
    target.query = query;
  }
  const took = performance.now() - t0;
  done = true;
  await Promise.all(loops);
  const from = events.indexOf('counted');
  const to = events.indexOf('existing');
  expect(from).toBeGreaterThanOrEqual(0);
  expect(to).toBeGreaterThan(from);
  return {
    during: events.filter((e) => e === 'get').length,
    whileValidating: events.slice(from, to).filter((e) => e === 'get').length,
    took,
  };
}

/** Counts the statements the database is asked to run (PGlite or a PostgreSQL pool). */
function countQueries(): { count: () => number; stop: () => void } {
  let n = 0;
  const target = (env.ctx.database.pglite ?? env.ctx.database.pool) as unknown as Record<string, (...a: unknown[]) => unknown>;
  const restore: Array<() => void> = [];
  for (const m of ['query', 'exec', 'transaction', 'connect']) {
    const orig = target[m];
    if (typeof orig !== 'function') continue;
    target[m] = function (this: unknown, ...args: unknown[]) {
      n++;
      return orig.apply(this, args);
    };
    restore.push(() => {
      target[m] = orig;
    });
  }
  return { count: () => n, stop: () => restore.forEach((r) => r()) };
}

describe('CSV import and the rest of the server', () => {
  it(`a ${MAX_IMPORT_ROWS}-row import from a $10 account: pricing and a database-backed GET are answered all through it`, async () => {
    const a = await signUp(env.app);
    const other = await signUp(env.app);
    const userId = await userIdOf(env, a.email);
    const before = await balanceCents(env, userId);
    let report: any;
    const requests = [
      () => call(env.app, 'GET', '/v1/info/pricing'),
      () => call(env.app, 'GET', '/v1/trackings/get?numRecords=5', { token: other.apiKey }),
    ];
    const { during, whileValidating, took } = await interleaving(
      'STALL',
      async () => {
        report = (await importCsv(a.apiKey, csvOf(MAX_IMPORT_ROWS, 'STALL'))).body.payload;
      },
      requests,
    );
    console.log(
      `[import-stall] ${MAX_IMPORT_ROWS} rows from $${before / 100}: import ${took.toFixed(0)} ms, ${during} GETs answered during it, ${whileValidating} while it validated the rows`,
    );
    expect(report.created).toBe(before / 5);
    expect(report.failed).toBe(MAX_IMPORT_ROWS - before / 5);
    expect(report.rows).toHaveLength(MAX_IMPORT_ROWS);
    expect(report.rows[report.created]).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/^Insufficient balance: this costs \$0\.05 and your balance is \$0\.00/),
    });
    // The ledger is exact: one charge per tracking created, never below zero.
    expect(await balanceCents(env, userId)).toBe(before - report.created * 5);
    const listed = await call(env.app, 'GET', '/v1/trackings/get?numRecords=500', { token: a.apiKey });
    expect(listed.body.payload).toHaveLength(report.created);
    // GETs are answered all through the import, its validation of 5,000 rows included.
    expect(during).toBeGreaterThan(10);
    expect(whileValidating).toBeGreaterThanOrEqual(3);
  });

  it('a $0 account: every row is refused with no per-row database work, and GETs are answered while it validates', async () => {
    const a = await signUp(env.app);
    await setBalance(env, a.email, 0);
    const q = countQueries();
    // The GETs beside the import ask the database too, and a busier machine fits more of them in: each is allowed for.
    const beforeGet = q.count();
    await call(env.app, 'GET', '/v1/info/pricing');
    const perGet = q.count() - beforeGet;
    let report: any;
    let queries = 0;
    const { during, whileValidating, took } = await interleaving(
      'ZERO',
      async () => {
        const before = q.count();
        report = (await importCsv(a.apiKey, csvOf(MAX_IMPORT_ROWS, 'ZERO'))).body.payload;
        queries = q.count() - before;
      },
      [() => call(env.app, 'GET', '/v1/info/pricing')],
    );
    q.stop();
    console.log(
      `[import-stall] ${MAX_IMPORT_ROWS} rows from $0: ${queries} database calls (including auth and concurrent requests), import ${took.toFixed(0)} ms, ${during} GETs answered during it, ${whileValidating} while it validated the rows`,
    );
    expect(report.created).toBe(0);
    expect(report.failed).toBe(MAX_IMPORT_ROWS);
    expect(new Set(report.rows.map((r: { message: string }) => r.message))).toEqual(
      new Set(['Insufficient balance: this costs $0.05 and your balance is $0.00. Please add balance.']),
    );
    // Authentication, the duplicate check (one query per 1,000 numbers) and one balance read: no per-row work.
    expect(queries).toBeLessThan(30 + (during + 1) * perGet);
    expect(whileValidating).toBeGreaterThanOrEqual(3);
  });

  it('keeps the per-row report: duplicates in the file and already tracked, invalid rows, charged per created', async () => {
    const a = await signUp(env.app);
    const userId = await userIdOf(env, a.email);
    await setBalance(env, a.email, 10);
    await importCsv(a.apiKey, 'tid,courier\nDUPE0000001,ups\n');
    const csv = ['tid,courier', 'DUPE0000001,ups', 'NEW00000001,ups', 'NEW00000001,ups', ',ups', 'NEW00000002,ups', 'NEW00000002,ups'].join(
      '\n',
    );
    const r = (await importCsv(a.apiKey, csv)).body.payload;
    expect(r.rows.map((x: { row: number; status: string; message: string }) => [x.row, x.status, x.message])).toEqual([
      [2, 'error', 'You are already tracking DUPE0000001'],
      [3, 'created', expect.stringMatching(/UPS tracking number; we will try it anyway/)],
      [4, 'error', 'You are already tracking NEW00000001'],
      [5, 'error', 'Tracking Number is required'],
      [6, 'error', 'Insufficient balance: this costs $0.05 and your balance is $0.00. Please add balance.'],
      [7, 'error', 'Insufficient balance: this costs $0.05 and your balance is $0.00. Please add balance.'],
    ]);
    expect(r).toMatchObject({ created: 1, failed: 5 });
    expect(await balanceCents(env, userId)).toBe(0);
  });

  it(`refuses more than ${MAX_IMPORT_ROWS} rows with a clear message`, async () => {
    const a = await signUp(env.app);
    const r = await importCsv(a.apiKey, csvOf(MAX_IMPORT_ROWS + 1, 'MANY'));
    expect(r.body.code).toBe(400);
    expect(r.body.message).toBe(`A CSV import takes at most ${MAX_IMPORT_ROWS} rows; split the file`);
  });

  it('one import at a time per account, and a per-account ceiling', async () => {
    const a = await signUp(env.app);
    await setBalance(env, a.email, 0);
    // Which of the two starts first is up to the server (on PostgreSQL the route limit's count is a database
    // round trip before each handler): one runs, the other is told an import is already running.
    const pair = await Promise.all([importCsv(a.apiKey, csvOf(2000, 'PAR')), importCsv(a.apiKey, csvOf(2000, 'PBR'))]);
    expect(pair.map((r) => r.body.code).sort()).toEqual([200, 429]);
    expect(pair.find((r) => r.body.code === 429)!.body.message).toMatch(/already running/);
    // From a new address each time, so the per-IP route limit is not what answers.
    const fromIp = (i: number) =>
      env.app.inject({
        method: 'POST',
        url: '/v1/trackings/import',
        remoteAddress: `127.9.0.${i}`,
        headers: { 'sm-api-token': a.apiKey, 'content-type': 'text/csv' },
        payload: csvOf(1, `SEQ${i}_`),
      });
    const codes: number[] = [];
    for (let i = 1; i <= IMPORT_MAX_PER_WINDOW + 1; i++) codes.push((await fromIp(i)).json().code);
    expect(codes.filter((c) => c === 200)).toHaveLength(IMPORT_MAX_PER_WINDOW - 1); // the parallel pair used one
    const limited = await fromIp(100);
    expect(limited.json()).toMatchObject({ code: 429, message: 'Too many imports: wait a few minutes, then send the next file' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});
