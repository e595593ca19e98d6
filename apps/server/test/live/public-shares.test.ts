// The public pages' streams are shared fairly between client addresses (attack of 2026-11-26, finding 10): IPv6
// clients count per /64, and a full process sheds the oldest stream of the address holding the most, rather than
// refusing everyone. Behind a trusted proxy, so X-Forwarded-For names the client.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { TOO_MANY_PUBLIC_STREAMS } from '../../src/modules/live/live.routes.ts';
import { EX, add } from '../trackings/fixtures.ts';
import { openStream, type SseStream } from './sse-client.ts';

let env: TestEnv;
let base: string;
let page: string;
const opened: SseStream[] = [];
beforeAll(async () => {
  env = await createTestEnv({ TRUST_PROXY: 'true', LIVE_PUBLIC_STREAMS_PER_ADDRESS: '3', LIVE_PUBLIC_STREAMS_MAX: '6' });
  await env.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
  const a = await signUp(env.app);
  expect((await add(env, a.apiKey, { tid: EX.ups.delivered })).statusCode).toBe(201);
  page = `/v1/track/${a.profile.uid}_${EX.ups.delivered}/live`;
});
afterAll(async () => {
  for (const s of opened) s.close();
  await env?.close();
});

const from = async (ip: string) => {
  const s = await openStream(base, null, { 'x-forwarded-for': ip }, page);
  opened.push(s);
  return s;
};
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), ms))]);

describe('public live streams per client address', () => {
  it('counts IPv6 clients per /64: the fourth address of one /64 is refused like a fourth tab', async () => {
    for (const ip of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3']) expect((await from(ip)).status).toBe(200);
    const fourth = await from('2001:db8:1:2::4');
    expect(fourth.status).toBe(429);
    await fourth.ended;
    expect(fourth.text()).toContain(TOO_MANY_PUBLIC_STREAMS);
    // The next /64 is someone else.
    expect((await from('2001:db8:1:3::1')).status).toBe(200);
  });

  it('when the process is full, a newcomer takes the oldest stream of the address holding the most', async () => {
    // 4 open (3 + 1 above); two more from the second /64 fill the process (6).
    const second = [await from('2001:db8:1:3::2'), await from('2001:db8:1:3::3')];
    for (const s of second) expect(s.status).toBe(200);
    expect(env.app.liveHub.size).toBe(6);
    const oldestOfFirst = opened[0]!;
    const visitor = await from('203.0.113.9');
    expect(visitor.status).toBe(200);
    // Both /64s hold 3: the first one found loses its oldest stream; nobody else's is touched.
    expect(await within(oldestOfFirst.ended, 5000)).toBe(true);
    for (const s of [opened[1]!, opened[2]!, ...second]) expect(await within(s.ended, 200)).toBe(false);
    expect(env.app.liveHub.size).toBe(6);
    // A second newcomer from the visitor's address is refused when no address holds more than it would.
    const v2 = await from('203.0.113.9');
    expect(v2.status).toBe(200);
    const v3 = await from('203.0.113.9');
    expect(v3.status).toBe(503);
  });
});
