// Slow and greedy clients on a real socket (attack of 2026-11-26, finding 5): a body trickled byte by byte to the
// unauthenticated push receiver, headers that never end, and one address opening many connections. Timeouts are
// set short here (REQUEST_TIMEOUT_SECONDS, HEADERS_TIMEOUT_SECONDS); a live stream outlives them.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { users } from '../../src/db/schema.ts';
import { publishLive } from '../../src/modules/live/live.service.ts';
import { TOO_MANY_CONNECTIONS, TOO_MANY_REQUESTS_IN_FLIGHT } from '../../src/lib/connection-limits.ts';
import { openStream } from '../live/sse-client.ts';

const envs: TestEnv[] = [];
const sockets: net.Socket[] = [];
afterAll(async () => {
  for (const s of sockets) s.destroy();
  for (const e of envs) await e.close();
});

async function listen(vars: Record<string, string>): Promise<{ env: TestEnv; port: number }> {
  const env = await createTestEnv(vars);
  envs.push(env);
  await env.app.listen({ port: 0, host: '127.0.0.1' });
  return { env, port: (env.app.server.address() as AddressInfo).port };
}

/** A raw client: what it received, and when the server closed it (null while open). */
function rawClient(port: number, localAddress = '127.0.0.1') {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  sockets.push(socket);
  let received = '';
  let closedAt: number | null = null;
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (received += d));
  socket.on('error', () => {});
  const closed = new Promise<void>((done) => socket.once('close', () => ((closedAt = Date.now()), done())));
  const connected = new Promise<void>((done) => socket.once('connect', () => done()));
  return { socket, connected, closed, received: () => received, closedAt: () => closedAt };
}

/** Within `ms`, or null when it did not happen. */
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<null>((r) => setTimeout(() => r(null), ms))]);

describe('request and header timeouts', () => {
  let port: number;
  let env: TestEnv;
  beforeAll(async () => {
    ({ env, port } = await listen({ REQUEST_TIMEOUT_SECONDS: '1.5', HEADERS_TIMEOUT_SECONDS: '1' }));
  });

  it('answers 408 and closes a body trickled to the push receiver past REQUEST_TIMEOUT_SECONDS', async () => {
    const c = rawClient(port);
    await c.connected;
    const started = Date.now();
    c.socket.write('POST /carriers/ups/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
    const trickle = setInterval(() => c.socket.writable && c.socket.write(' '), 200);
    try {
      expect(await within(c.closed, 15_000), `still open after 15 s; received ${JSON.stringify(c.received())}`).not.toBeNull();
    } finally {
      clearInterval(trickle);
    }
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(c.received()).toContain('The request took too long to arrive');
    expect(c.closedAt()! - started).toBeGreaterThanOrEqual(1000);
  });

  it('answers 408 and closes headers that never end', async () => {
    const c = rawClient(port);
    await c.connected;
    c.socket.write('GET /livez HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => c.socket.writable && c.socket.write('X-A: b\r\n'), 200);
    try {
      expect(await within(c.closed, 15_000), 'still open after 15 s').not.toBeNull();
    } finally {
      clearInterval(trickle);
    }
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('keeps a live stream open past the request timeout, still delivering events', async () => {
    const a = await signUp(env.app);
    const s = await openStream(`http://127.0.0.1:${port}`, a.session);
    try {
      expect(s.status).toBe(200);
      expect(await within(s.ended, 4000)).toBeNull();
      await publishLive(env.ctx.db, { kind: 'balance', accountId: await idOf(env, a.email) });
      await s.waitFor((f) => f.data.kind === 'balance', 10_000);
    } finally {
      s.close();
    }
  });
});

async function idOf(env: TestEnv, email: string): Promise<string> {
  const [u] = await env.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return u!.id;
}

describe('connections and requests per address', () => {
  it('refuses the connection past CONNECTIONS_PER_ADDRESS with a 429 and closes it; another address still gets in', async () => {
    const { port } = await listen({ CONNECTIONS_PER_ADDRESS: '4', REQUESTS_IN_FLIGHT_PER_ADDRESS: '0' });
    const held = Array.from({ length: 4 }, () => rawClient(port));
    await Promise.all(held.map((c) => c.connected));
    const over = rawClient(port);
    expect(await within(over.closed, 10_000), 'the fifth connection was kept').not.toBeNull();
    expect(over.received()).toMatch(/^HTTP\/1\.1 429 /);
    expect(over.received()).toContain(TOO_MANY_CONNECTIONS);
    // The held ones are untouched, and a neighbour is not counted with them.
    for (const c of held) expect(c.closedAt()).toBeNull();
    const other = rawClient(port, '127.0.0.2');
    await other.connected;
    other.socket.write('GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await within(other.closed, 10_000);
    expect(other.received()).toMatch(/^HTTP\/1\.1 200 /);
    // A held connection that closes frees its place.
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await new Promise((r) => setTimeout(r, 100));
    const again = rawClient(port);
    again.socket.write('GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await within(again.closed, 10_000);
    expect(again.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('refuses a request past REQUESTS_IN_FLIGHT_PER_ADDRESS while slow bodies are under way, and frees the places when they end', async () => {
    const { port } = await listen({ CONNECTIONS_PER_ADDRESS: '0', REQUESTS_IN_FLIGHT_PER_ADDRESS: '2' });
    const slow = Array.from({ length: 2 }, () => rawClient(port));
    await Promise.all(slow.map((c) => c.connected));
    for (const c of slow) c.socket.write('POST /carriers/ups/events HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{');
    await new Promise((r) => setTimeout(r, 300));
    const third = rawClient(port);
    third.socket.write('GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await within(third.closed, 10_000);
    expect(third.received()).toMatch(/^HTTP\/1\.1 429 /);
    expect(third.received()).toContain(TOO_MANY_REQUESTS_IN_FLIGHT);
    for (const c of slow) c.socket.destroy();
    await Promise.all(slow.map((c) => c.closed));
    await new Promise((r) => setTimeout(r, 100));
    const fourth = rawClient(port);
    fourth.socket.write('GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await within(fourth.closed, 10_000);
    expect(fourth.received()).toMatch(/^HTTP\/1\.1 200 /);
  });
});
