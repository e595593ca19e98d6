// A person's statement before queued background work in the embedded database's thread (decision 164): the turn in
// progress finishes, then an HTTP request's statement goes before the job workers' statements that came earlier, and
// background work still gets every fifth turn while persons keep asking.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PGliteThread } from '../../src/db/pglite-thread.ts';
import { TurnQueue } from '../../src/db/pglite-turns.ts';
import { servingRequest, withLogContext } from '../../src/lib/log-context.ts';
import { onPostgres } from '../helpers.ts';

describe('the turn queue', () => {
  it('gives the turn to urgent callers first, each class in arrival order, and a background one after four urgent in a row', async () => {
    const turns = new TurnQueue(4);
    const order: string[] = [];
    const first = await turns.take(false);
    const waiters = [
      ['b1', false],
      ['b2', false],
      ['u1', true],
      ['u2', true],
      ['u3', true],
      ['u4', true],
      ['u5', true],
      ['u6', true],
    ].map(([name, urgent]) => turns.take(urgent as boolean).then((release) => (order.push(name as string), release)));
    expect(turns.waiting).toEqual({ urgent: 6, background: 2 });
    first();
    // Each holder hands the turn on as soon as it has it.
    await Promise.all(waiters.map(async (w) => (await w)()));
    expect(order).toEqual(['u1', 'u2', 'u3', 'u4', 'b1', 'u5', 'u6', 'b2']);
    expect(turns.waiting).toEqual({ urgent: 0, background: 0 });
  });

  it('hands the turn on once, however often its release is called', async () => {
    const turns = new TurnQueue();
    const release = await turns.take(false);
    const granted: string[] = [];
    const second = turns.take(false).then((r) => (granted.push('second'), r));
    const third = turns.take(false).then((r) => (granted.push('third'), r));
    release();
    release();
    const r2 = await second;
    await new Promise((r) => setImmediate(r));
    // A second call must not give the turn to the third while the second holds it.
    expect(granted).toEqual(['second']);
    expect(turns.waiting).toEqual({ urgent: 0, background: 1 });
    r2();
    (await third)();
    expect(granted).toEqual(['second', 'third']);
    expect(turns.waiting).toEqual({ urgent: 0, background: 0 });
  });
});

describe('which work serves a request', () => {
  it("is a request's context, not a job's nested in it, and not code outside both", () => {
    expect(servingRequest()).toBe(false);
    expect(withLogContext({ reqId: 'req-1' }, servingRequest)).toBe(true);
    expect(withLogContext({ reqId: 'req-1' }, () => withLogContext({ queue: 'tracking-refresh' }, servingRequest))).toBe(false);
    expect(withLogContext({ jobId: 'job-1', queue: 'notify' }, servingRequest)).toBe(false);
  });
});

describe.skipIf(onPostgres)("the database thread's turns", () => {
  let thread: PGliteThread;

  beforeAll(async () => {
    const template = inject('pgliteTemplate');
    const loadDataDir = template ? new Blob([await readFile(template)]) : undefined;
    thread = new PGliteThread({ options: loadDataDir ? { loadDataDir } : undefined, urgent: servingRequest });
    await thread.waitReady;
  }, 120_000);
  afterAll(async () => {
    await thread?.close();
  });

  it("answers a request's statement before the background statements queued ahead of it", async () => {
    let finish!: () => void;
    const holding = new Promise<void>((resolve) => {
      void thread.transaction(async (tx) => {
        await tx.query('select 1');
        await new Promise<void>((r) => {
          finish = r;
          resolve();
        });
      });
    });
    await holding;
    const order: string[] = [];
    const ask = (name: string, asRequest: boolean) => {
      const run = () => thread.query<{ n: string }>(`select '${name}' as n`);
      return (asRequest ? withLogContext({ reqId: name }, run) : run()).then((r) => order.push(r.rows[0]!.n));
    };
    const asked: Array<Promise<unknown>> = [ask('job-1', false), ask('job-2', false), ask('job-3', false), ask('person', true)];
    // A background transaction queued behind them too: it waits like a statement.
    asked.push(
      thread.transaction(async (tx) => void order.push(String((await tx.query<{ n: string }>(`select 'job-tx' as n`)).rows[0]!.n))),
    );
    finish();
    await Promise.all(asked);
    expect(order).toEqual(['person', 'job-1', 'job-2', 'job-3', 'job-tx']);
  });

  it("hands the turn on after a request's statement fails", async () => {
    const failed = withLogContext({ reqId: 'bad' }, () => thread.query('select 1 / 0')).catch((e: { code?: string }) => e.code);
    const after = thread.query<{ n: number }>('select 2 as n');
    expect(await failed).toBe('22012');
    expect((await after).rows).toEqual([{ n: 2 }]);
  });
});
