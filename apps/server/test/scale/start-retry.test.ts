// An api or worker process started while PostgreSQL is restarting (or not up yet) waits for the server instead of
// exiting at start-up; an error that waiting cannot cure still fails at once.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { isTransientStartError, openDatabase, retryWhileStarting } from '../../src/db/client.ts';
import { createQueue } from '../../src/jobs/queue.ts';
import { onPostgres } from '../helpers.ts';
import { freePort } from '../loopback.ts';

/** Starts, on `port`, a TCP relay to the test PostgreSQL server: the server "comes back" at that moment. */
async function relayTo(port: number, target: URL): Promise<net.Server> {
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream).pipe(client);
    const end = () => (client.destroy(), upstream.destroy());
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return server;
}

describe('start-up while the database is not answering', () => {
  it('tells a refused connection and a server shutting down from errors that waiting cannot cure', () => {
    expect(isTransientStartError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransientStartError(Object.assign(new Error('the database system is starting up'), { code: '57P03' }))).toBe(true);
    expect(isTransientStartError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(
      true,
    );
    expect(isTransientStartError(new Error('wrapped', { cause: Object.assign(new Error('x'), { code: '08006' }) }))).toBe(true);
    expect(isTransientStartError(Object.assign(new Error('password authentication failed'), { code: '28P01' }))).toBe(false);
    expect(isTransientStartError(Object.assign(new Error('database "nope" does not exist'), { code: '3D000' }))).toBe(false);
    expect(isTransientStartError(new Error('relation "x" does not exist'))).toBe(false);
  });

  it('retries transient failures until the work succeeds, and gives up at the deadline', async () => {
    const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    let calls = 0;
    const retries: number[] = [];
    const value = await retryWhileStarting(
      async () => {
        if (++calls < 3) throw refused();
        return 'up';
      },
      { onStartRetry: (_e, attempt) => retries.push(attempt) },
    );
    expect(value).toBe('up');
    expect(retries).toEqual([1, 2]);

    let fatalCalls = 0;
    await expect(
      retryWhileStarting(async () => {
        fatalCalls++;
        throw Object.assign(new Error('password authentication failed'), { code: '28P01' });
      }, {}),
    ).rejects.toThrow(/password/);
    expect(fatalCalls).toBe(1);

    await expect(retryWhileStarting(async () => Promise.reject(refused()), { startTimeoutMs: 600 })).rejects.toThrow(/ECONNREFUSED/);
  });

  it.runIf(onPostgres)('a process started before the server answers opens the database and the queue once it does', async () => {
    const port = await freePort();
    const target = new URL(process.env.TEST_DATABASE_URL!);
    const url = new URL(target);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    const retries: string[] = [];
    let relay: net.Server | undefined;
    const opening = openDatabase({
      databaseUrl: url.toString(),
      dataDir: 'memory://',
      poolSize: 2,
      onStartRetry: (err) => {
        retries.push(err.message);
        // The server comes back after the second refused attempt.
        if (retries.length === 2) void relayTo(port, target).then((s) => (relay = s));
      },
    });
    const database = await opening;
    try {
      expect(retries.length).toBeGreaterThanOrEqual(2);
      expect(retries[0]).toMatch(/ECONNREFUSED/);
      const queue = await createQueue(database);
      await queue.stop({ graceful: false });
    } finally {
      await database.close();
      await new Promise((r) => (relay ? relay.close(r) : r(undefined)));
    }
  });
});
