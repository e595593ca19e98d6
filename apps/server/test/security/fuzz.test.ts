// Property-based fuzzing of every operation in the served OpenAPI document: schema-valid and mutated
// bodies, hostile scalars, wrong content types, hostile path parameters and query strings, with the
// caller's own token, another account's, a company owner's, a courier's (of that company and of another), garbage,
// or none; path ids and body fields are often real ids of those accounts (trackings, shipments, proofs, members,
// payments, alerts, notifications), so handlers go deep. No reply may be a 5xx, leave the envelope, take over a
// second of CPU, or show internals. 10,000 requests by default (FUZZ_RUNS to change it; about 10 s).
import { pngOf } from '../shipments/png.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { setBalance } from '../trackings/fixtures.ts';
import { buildWorld, type World } from './world.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const LEAK = /node_modules|\.ts:\d+|\bat \w+ \(|TypeError|RangeError|ZodError|SQLSTATE|drizzle|pglite|duplicate key|violates|stack/i;

type Schema = Record<string, any>;
interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  pathParams: string[];
  query: Array<{ name: string; schema: Schema }>;
  body?: Schema;
}

let env: TestEnv;
let world: World;
/** Real ids of the world's records, used as path values and id-like fields. */
let realIds: string[] = [];
const ops: Operation[] = [];
const creds = { ownKey: '', ownSession: '', ownEmail: '', otherKey: '', ownTid: '1Z5R89390350075608', ownUid: '' };

beforeAll(async () => {
  // Proof uploads are limited per user: lifted, so the fuzzed images reach the image checks.
  env = await createTestEnv({ PROOF_UPLOADS_PER_HOUR: '1000000' });
  const a = await signUp(env.app);
  const b = await signUp(env.app);
  await setBalance(env, a.email, 100_00);
  Object.assign(creds, { ownKey: a.apiKey, ownSession: a.session, ownEmail: a.email, otherKey: b.apiKey, ownUid: a.profile.uid });
  await env.app.inject({ method: 'POST', url: '/v1/trackings/add', headers: { 'sm-api-token': a.apiKey }, payload: { tid: creds.ownTid } });
  world = await buildWorld(env);
  const wa = world.a;
  realIds = [
    wa.trackingTid,
    wa.privateTid,
    wa.shipmentTid,
    world.b.shipmentTid,
    wa.checkpointId,
    wa.paymentId,
    wa.alertId,
    wa.notificationId,
    world.courierA.uid,
    world.courierB.uid,
    world.companyA.uid,
    `${world.companyA.uid}_${wa.shipmentTid}`,
    `${world.companyA.uid}_${wa.trackingTid}`,
  ];
  // The first address lookup loads the ZIP index (a one-time cost of the process, about 1.6 s beside a CPU hog on
  // both cores): paid here, so the per-request bound below measures requests, not that load.
  await env.app.inject({ method: 'GET', url: '/v1/user/geo/autocomplete?q=Austin', headers: { 'sm-api-token': a.apiKey } });
  const doc = (await env.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const params: any[] = op.parameters ?? [];
      ops.push({
        method: method.toUpperCase() as Operation['method'],
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
});
afterAll(() => env.close());

// ------------------------------------------------------------------ arbitraries
const deep = (n: number, leaf: unknown, asArray: boolean) => {
  let v = leaf;
  for (let i = 0; i < n; i++) v = asArray ? [v] : { a: v };
  return v;
};
const hostileString = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '\u202Eevil',
    'ACME\r\nBcc: x@y\u202egnp.exe',
    'javascript:alert(document.domain)',
    'http://127.0.0.1/x',
    "' or 1=1--",
    '${jndi:ldap://127.0.0.1/x}',
    '{{7*7}}',
    '../../etc/passwd',
    '%00',
    '%ff%fe',
    '<script>alert(1)</script>',
    '🙂'.repeat(50),
    ' ',
    '',
    '__proto__',
  ),
  fc.constant('x'.repeat(100_000)),
  fc.string({ maxLength: 40, unit: 'binary' }),
);
const TINY = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const HOSTILE_IMAGES = [
  `data:image/png;base64,${TINY}`,
  `data:image/jpeg;base64,${TINY}`,
  `data:image/png;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="9000" height="9000"><rect width="9000" height="9000"/></svg>').toString('base64')}`,
  `data:image/png;base64,${Buffer.from('GIF89a\x01\x00\x01\x00').toString('base64')}`,
  `data:image/jpeg;base64,${Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]).toString('base64')}`,
  `data:image/png;base64,${pngOf(16_000, 16_000, { rows: 4000 }).toString('base64')}`,
  `data:image/png;base64,${pngOf(100_000, 100_000, { rows: 0 }).toString('base64')}`,
  `data:image/png;base64,${pngOf(0, 0, { rows: 0 }).toString('base64')}`,
  `data:image/jpeg;base64,${Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0xff, 0xff, 0xff, 0xff]).toString('base64')}`,
  `data:image/webp;base64,${Buffer.from('RIFF\x00\x00\x00\x00WEBPVP8X').toString('base64')}`,
  `data:image/png;base64,${Buffer.from(TINY, 'base64').subarray(0, 30).toString('base64')}`,
];
const hostileScalar = fc.oneof(
  hostileString,
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -0, 0.5, -1, 0, 999999999999, true, false, null),
  fc.integer(),
  fc.double({ noNaN: true }),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: hostileScalar },
  { weight: 1, arbitrary: fc.array(hostileScalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'a', 'email', 'tid'), hostileScalar, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 20, max: 3000 }), fc.boolean()).map(([n, arr]) => deep(n, 'x', arr)) },
);

function fromSchema(s: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!s || depth > 6) return hostileScalar;
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return fc.oneof(...alts.map((a: Schema) => fromSchema(a, depth + 1)));
  switch (s.type) {
    case 'object': {
      const props: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries<Schema>(s.properties ?? {})) props[k] = fromSchema(v, depth + 1);
      return fc.record(props, { requiredKeys: (s.required ?? []).filter((k: string) => k in props) });
    }
    case 'array':
      return fc.array(fromSchema(s.items, depth + 1), { maxLength: 3 });
    case 'string':
      // The proof's images (a data URL pattern): images that lie about their type, declare huge sizes or are cut short.
      if (typeof s.pattern === 'string' && s.pattern.includes('data:image')) return fc.constantFrom(...HOSTILE_IMAGES);
      if (s.format === 'email') return fc.oneof(fc.emailAddress(), fc.constant(creds.ownEmail));
      return fc.oneof(
        fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 30, 30) }),
        fc.constantFrom(creds.ownTid, 'password123', '1Z5R89390350075626', ...realIds, world.courierA.email, world.courierB.email),
      );
    case 'integer':
      return fc.integer({ min: s.minimum ?? -10, max: s.maximum ?? 1000 });
    case 'number':
      return fc.double({ noNaN: true, min: -1e6, max: 1e6 });
    case 'boolean':
      return fc.boolean();
    default:
      return hostileScalar;
  }
}

/** A body: valid by the schema, the same with one field made hostile or removed, or anything at all. */
function bodyFor(op: Operation): fc.Arbitrary<unknown> {
  const valid = fromSchema(op.body);
  const mutated = fc.tuple(valid, hostileValue, fc.boolean(), fc.nat()).map(([v, h, remove, i]) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return h;
    const keys = Object.keys(v);
    const out: Record<string, unknown> = { ...(v as object) };
    if (keys.length === 0) out.__proto__extra = h;
    else if (remove) delete out[keys[i % keys.length]!];
    else out[keys[i % keys.length]!] = h;
    return out;
  });
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 4, arbitrary: mutated },
    { weight: 2, arbitrary: hostileValue },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json',
  'text/plain',
  'text/csv',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xx',
  'application/xml',
  'application/json; charset=utf-16',
);
const rawBodies = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":',
    'null',
    '"x"',
    '1',
    'true',
    '[]',
    'tid\nCSV0001\n',
    'tid,courier\n1Z5R89390350075608,ups\n',
    '--xx\r\n\r\n',
    '<a/>',
    '['.repeat(5000) + ']'.repeat(5000),
  ),
  fc.string({ maxLength: 200, unit: 'binary' }),
);
const pathValue = fc.oneof(
  fc.constantFrom(
    '..%2F..%2Fetc',
    '%2e%2e%2f',
    '%00',
    'a%00b',
    '%ff%fe',
    'x'.repeat(301),
    'x'.repeat(400),
    '%F0%9F%99%82',
    '__proto__',
    '1Z5R89390350075608',
    'abc_1Z5R89390350075608',
  ),
  fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent),
  hostileString
    .filter((s) => s.length > 0 && s.length < 500)
    .map((s) => {
      try {
        return encodeURIComponent(s);
      } catch {
        return 'x%ud800';
      }
    }),
);
const queryValue = fc.oneof(
  fc.constantFrom('-1', '0', '1.5', '1e309', '99999999999999999999', '%00', 'a%00b', '', '%ff'),
  fc.integer().map(String),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);
const tokenKind = fc.constantFrom(
  'own-key',
  'own-key',
  'own-session',
  'other-key',
  'company-a',
  'company-a',
  'courier-a',
  'company-b',
  'courier-b',
  'garbage',
  'none',
  'none',
);

const requestArb = fc.integer({ min: 0, max: 1_000_000 }).chain((i) => {
  const op = ops[i % ops.length]!;
  return fc.record({
    op: fc.constant(op),
    params: fc.tuple(
      ...op.pathParams.map(() => fc.oneof(pathValue, fc.constant(`${creds.ownUid}_${creds.ownTid}`), fc.constantFrom(...realIds))),
    ),
    query: fc.array(fc.tuple(fc.constantFrom(...op.query.map((q) => q.name), '__proto__[x]', 'status[]'), queryValue), { maxLength: 4 }),
    body: bodyFor(op),
    raw: fc.option(rawBodies, { freq: 4 }),
    contentType: contentTypes,
    token: tokenKind,
    garbage: fc.constantFrom('sess_' + 'x'.repeat(30), 'x'.repeat(201), "' or 1=1--", 'A'.repeat(40), 'sess_\u00e9'),
    ip: fc.integer({ min: 1, max: 250 }),
  });
});

// ------------------------------------------------------------------ the property
describe('fuzzing every operation in /v1/openapi.json', () => {
  // The timeout is a safety net, not a bound: 10,000 requests took 943 s beside a CPU hog on both cores at load 25-31.
  it(`${RUNS} requests: no 5xx, the envelope, under 1 s of CPU, no internals`, { timeout: Math.max(300_000, RUNS * 300) }, async () => {
    expect(ops.length).toBeGreaterThanOrEqual(29);
    const statuses = new Map<number, number>();
    const perOp = new Map<string, number>();
    const perActor = new Map<string, number>();
    let pdfs = 0;
    let slowest = 0;
    let mostCpu = 0;
    const durations: number[] = [];
    const cpus: number[] = [];
    const medianOf = (xs: number[]) => (xs.length ? [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]! : 0);
    const t0 = performance.now();
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        let url = r.op.path;
        r.op.pathParams.forEach((name, i) => (url = url.replace(`{${name}}`, r.params[i] as string)));
        if (r.query.length) url += '?' + r.query.map(([k, v]) => `${k}=${v}`).join('&');
        const token = {
          'own-key': creds.ownKey,
          'own-session': creds.ownSession,
          'other-key': creds.otherKey,
          'company-a': world.companyA.session,
          'courier-a': world.courierA.session,
          'company-b': world.companyB.session,
          'courier-b': world.courierB.session,
          garbage: r.garbage,
          none: '',
        }[r.token];
        const headers: Record<string, string> = {};
        if (token) headers['sm-api-token'] = token;
        let payload: string | undefined;
        if (r.op.method !== 'GET' && r.op.method !== 'DELETE') {
          if (r.raw !== null) {
            payload = r.raw;
            headers['content-type'] = r.contentType;
          } else if (r.body !== undefined) {
            payload = JSON.stringify(r.body);
            headers['content-type'] = r.contentType === 'application/json' || Math.random() < 0.7 ? 'application/json' : r.contentType;
          }
        }
        const t = performance.now();
        const c = process.cpuUsage();
        const res = await env.app.inject({ method: r.op.method, url, headers, payload, remoteAddress: `127.77.0.${r.ip}` });
        const spent = process.cpuUsage(c);
        const cpu = (spent.user + spent.system) / 1000;
        const took = performance.now() - t;
        slowest = Math.max(slowest, took);
        mostCpu = Math.max(mostCpu, cpu);
        // Slow is judged on the CPU the request made this process spend (all its threads), not on the wall clock: a
        // request that loops or backtracks burns a second of CPU whatever the load, while a busy machine only makes
        // the wall clock longer (1.41 s of wall time was seen at load 15-29; issue 27, decision 160). 1 s, or 40 times
        // this run's median so far (decision 106).
        const cpuBound = Math.max(1000, 40 * medianOf(cpus));
        // The wall clock still catches a request that waits on something (a lock, a timer) without working: 10 s, or
        // 40 times this run's median so far, which a loaded machine stretches along with every other request.
        const slowBound = Math.max(10_000, 40 * medianOf(durations));
        durations.push(took);
        cpus.push(cpu);
        const what = `${r.op.method} ${url.slice(0, 200)} (${headers['content-type'] ?? '-'}, ${r.token}) -> ${res.statusCode} ${res.body.slice(0, 300)}`;
        // A receipt or a label sheet the caller may print is a PDF, not the envelope: fine when it is a success.
        if (res.statusCode === 200 && String(res.headers['content-type'] ?? '').startsWith('application/pdf')) {
          statuses.set(200, (statuses.get(200) ?? 0) + 1);
          perOp.set(`${r.op.method} ${r.op.path}`, (perOp.get(`${r.op.method} ${r.op.path}`) ?? 0) + 1);
          perActor.set(r.token, (perActor.get(r.token) ?? 0) + 1);
          pdfs++;
          return;
        }
        let body: any;
        try {
          body = res.json();
        } catch {
          throw new Error(`not JSON: ${what}`);
        }
        const code = typeof body?.code === 'number' ? body.code : res.statusCode;
        statuses.set(code, (statuses.get(code) ?? 0) + 1);
        perOp.set(`${r.op.method} ${r.op.path}`, (perOp.get(`${r.op.method} ${r.op.path}`) ?? 0) + 1);
        if (!(
          body &&
          typeof body.code === 'number' &&
          (body.status === 'success' || body.status === 'fail') &&
          typeof body.message === 'string' &&
          'payload' in body
        ))
          throw new Error(`not the envelope: ${what}`);
        // Google sign-in is off in tests: its 503 "not configured" is the intended answer.
        if (code >= 500 && !(code === 503 && /not configured/i.test(body.message))) throw new Error(`5xx: ${what}`);
        if (res.statusCode >= 500 && !(res.statusCode === 503 && /not configured/i.test(body.message))) throw new Error(`5xx: ${what}`);
        if (LEAK.test(body.message) || (body.status === 'fail' && LEAK.test(JSON.stringify(body.payload ?? ''))))
          throw new Error(`internals: ${what}`);
        if (cpu > cpuBound) throw new Error(`slow (${cpu.toFixed(0)} ms of CPU, bound ${cpuBound.toFixed(0)} ms): ${what}`);
        if (took > slowBound) throw new Error(`stalled (${took.toFixed(0)} ms, bound ${slowBound.toFixed(0)} ms): ${what}`);
        // Keep our own credentials usable when the fuzzer rotated them.
        if (code === 200 && r.op.path === '/v1/user/general/generatenewtoken' && r.token === 'own-key') creds.ownKey = body.payload.token;
        if (code === 200 && r.op.path === '/v1/user/general/generatenewtoken' && r.token === 'own-session')
          creds.ownKey = body.payload.token;
        if (code === 200 && r.op.path === '/v1/user/general/logout' && r.token === 'own-session') {
          const s = await env.app.inject({
            method: 'POST',
            url: '/v1/user/general/login',
            remoteAddress: '127.78.0.1',
            payload: { email: creds.ownEmail, password: 'password123' },
          });
          if (s.json().code === 200) creds.ownSession = s.json().payload.sessionToken;
        }
        // A world account that signed itself out signs in again, so later requests keep going deep.
        const actor = {
          'company-a': world.companyA,
          'courier-a': world.courierA,
          'company-b': world.companyB,
          'courier-b': world.courierB,
        }[r.token as 'company-a'];
        if (code === 200 && r.op.path === '/v1/user/general/logout' && actor) {
          const password = actor === world.companyA || actor === world.companyB ? 'password123' : 'courierpass1';
          const s = await env.app.inject({
            method: 'POST',
            url: '/v1/user/general/login',
            remoteAddress: '127.78.0.2',
            payload: { email: actor.email, password },
          });
          if (s.json().code === 200) actor.session = s.json().payload.sessionToken;
        }
        perActor.set(r.token, (perActor.get(r.token) ?? 0) + 1);
      }),
      { numRuns: RUNS, seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined, endOnFailure: true },
    );
    const secs = (performance.now() - t0) / 1000;
    console.log(
      `[fuzz] ${RUNS} requests over ${perOp.size} operations in ${secs.toFixed(1)} s; slowest ${slowest.toFixed(0)} ms (most CPU ${mostCpu.toFixed(0)} ms); ${pdfs} PDFs; codes ${JSON.stringify(Object.fromEntries([...statuses].sort((x, y) => x[0] - y[0])))}; by caller ${JSON.stringify(Object.fromEntries(perActor))}`,
    );
    expect(perOp.size).toBe(ops.length);
    // The server still answers.
    expect((await env.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
