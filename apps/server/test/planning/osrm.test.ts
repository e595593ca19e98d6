// Plan the day with road times from an OSRM server (ROUTING_URL; decision 118): a loopback fake of its
// `table` service answers ten minutes between any two places, and the plan's times are built from them. A
// server that fails leaves the plan on the straight-line estimate, and the plan says so.
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, createTestEnv, type TestEnv } from '../helpers.ts';
import { onLoopback, type Loopback } from '../loopback.ts';
import { company, courier, createShipment, readmeShipment } from '../shipments/fixtures.ts';

vi.setConfig({ testTimeout: 120_000 });
const DATE = '2030-03-05';
let env: TestEnv;
let failing: TestEnv;
let server: Loopback;
const asked: string[] = [];

beforeAll(async () => {
  const osrm = createServer((req, res) => {
    asked.push(req.url ?? '');
    const m = /^\/osrm\/table\/v1\/driving\/([^?]+)\?annotations=duration,distance$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404).end('{}');
      return;
    }
    const n = m[1]!.split(';').length;
    const grid = (v: number) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 0 : v)));
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ code: 'Ok', durations: grid(600), distances: grid(2500) }));
  });
  server = await onLoopback(osrm);
  env = await createTestEnv({ ROUTING_URL: `${server.url}/osrm` });
  failing = await createTestEnv({ ROUTING_URL: `${server.url}/broken` });
});
afterAll(async () => {
  await env?.close();
  await failing?.close();
  await server?.close();
});

async function day(e: TestEnv) {
  const c = await company(e.app);
  await courier(e.app, c.session);
  const { courier: _c, courierEmail: _e, ...rest } = readmeShipment();
  for (let i = 0; i < 3; i++)
    await createShipment(e.app, c.session, {
      ...rest,
      unassigned: true,
      expected: `${DATE}T12:00:00Z`,
      destination: { ...rest.destination, lat: 34.03 + i / 100, long: -118.48 },
    });
  return c;
}

describe('road times from OSRM', () => {
  it("times the routes from the server's table: ten minutes a leg, five at each stop", async () => {
    const c = await day(env);
    const r = await call(env.app, 'POST', '/v1/plans', { token: c.session, body: { date: DATE, seconds: 0.2 } });
    expect(r.statusCode, JSON.stringify(r.body)).toBe(201);
    expect(r.body.payload.settings.travel).toBe('roads');
    const [route] = r.body.payload.routes as { stops: { eta: string }[]; distanceKm: number; start: string; end: string }[];
    expect(route!.stops.map((s) => s.eta)).toEqual(['08:10', '08:25', '08:40'].map((t) => new Date(`${DATE}T${t}:00.000Z`).toISOString()));
    expect(route!.end).toBe(new Date(`${DATE}T08:55:00.000Z`).toISOString());
    expect(route!.distanceKm).toBe(10);
    // Depot and three destinations, longitude first.
    expect(asked.at(-1)).toMatch(/^\/osrm\/table\/v1\/driving\/-118\.482805,34\.032016;(-118\.480000,34\.0\d+;){2}-118\.480000,34\.0\d+\?/);
  });

  it('falls back to the straight-line estimate when the server fails, and says so', async () => {
    const c = await day(failing);
    const r = await call(failing.app, 'POST', '/v1/plans', { token: c.session, body: { date: DATE, seconds: 0.2 } });
    expect(r.statusCode, JSON.stringify(r.body)).toBe(201);
    expect(r.body.payload.settings.travel).toBe('straight-line');
    expect(r.body.payload.routes[0].stops).toHaveLength(3);
  });
});
