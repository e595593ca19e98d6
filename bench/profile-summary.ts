// Where a CPU profile's time went, by the parts of a request (decision 184): `node bench/profile-summary.ts FILE.cpuprofile
// [--from US --to US] [--requests N] [--top K]`. FILE is a V8 profile from `node --cpu-prof` (one file per thread: the
// main thread's, the database thread's); --from and --to cut it to one bench round (trackings.bench.ts logs each round's
// start and end on the same clock); --requests divides each part by the requests the round served (µs per request).
// Each sample goes to one part: the process's own states first ((idle), (garbage collector), (program)), then the load
// generator (autocannon anywhere on the stack), then a socket write at the leaf, else the innermost frame that a rule
// below names. So the parts add up to the whole, and a part's figure is time spent in it and in nothing it called that
// another rule names (Drizzle called from the repository counts as the database client, not as the repository).
import { readFileSync } from 'node:fs';

interface Frame {
  functionName: string;
  url: string;
}
interface Node {
  id: number;
  callFrame: Frame;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** [part, test on a frame]: the first that matches the innermost frame it can wins. */
const RULES: Array<[string, (f: Frame) => boolean]> = [
  ['floor route (bench)', (f) => f.url.includes('/bench/trackings.bench.ts') && f.functionName !== 'rows'],
  ['auth (token hash, cache, session)', (f) => /modules\/accounts\/(auth|tokens)/.test(f.url)],
  ['carrier detection', (f) => f.url.includes('/modules/carriers/detect')],
  [
    'validation (contract, zod, input checks)',
    (f) => /packages\/contract|node_modules\/zod|lib\/http\.ts/.test(f.url) || f.functionName === 'inputChecks',
  ],
  ['idempotency and the reply text', (f) => f.url.includes('/lib/idempotency')],
  ['tracking view (reply payload)', (f) => f.url.includes('/modules/trackings/views')],
  ['bus (notifications received)', (f) => f.url.includes('/lib/bus.ts') || f.url.includes('/modules/live/')],
  ['add service and repository', (f) => /modules\/(trackings|billing)\//.test(f.url)],
  ['security headers (helmet)', (f) => /security-headers|node_modules\/helmet/.test(f.url)],
  ['metrics (prom-client)', (f) => /lib\/metrics|http\/probes|prom-client/.test(f.url)],
  ['logging and log context', (f) => /lib\/log|node_modules\/pino|async_hooks|async_context/.test(f.url)],
  ['request hooks and socket limits', (f) => /http\/request-hooks|connection-limits|client-address/.test(f.url)],
  [
    'database client (Drizzle, pg, the thread stand-in)',
    (f) => /drizzle-orm|node_modules\/pg|pg-protocol|pg-types|db\/pglite-thread\.ts|db\/client\.ts/.test(f.url),
  ],
  [
    'thread messages (postMessage, structured clone)',
    (f) => /worker_threads|internal\/worker/.test(f.url) || f.functionName === 'postMessage',
  ],
  ['PGlite (WebAssembly PostgreSQL)', (f) => /@electric-sql\/pglite|^wasm:/.test(f.url)],
  ['database thread (worker, turns, prepared)', (f) => /pglite-thread\.(worker|prepared)|pglite-turns/.test(f.url)],
  [
    'Fastify and its plugins',
    (f) =>
      /node_modules\/(fastify|@fastify|find-my-way|avvio|light-my-request|fast-json-stringify|secure-json-parse|process-warning)/.test(
        f.url,
      ),
  ],
  ['Node HTTP (parse, headers, responses)', (f) => /node:_http|node:http/.test(f.url)],
  [
    'Node net, streams, timers',
    (f) => /node:net|node:internal\/(stream|net|timers|process\/task_queues)|node:stream|node:timers|node:events/.test(f.url),
  ],
];

const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString', 'writeUcs2String']);

export function summarize(
  p: Profile,
  from = -Infinity,
  to = Infinity,
): { totalUs: number; parts: Map<string, number>; leaves: Map<string, number> } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackOf = (id: number) => {
    const s: Frame[] = [];
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) s.push(byId.get(x)!.callFrame);
    return s;
  };
  const partCache = new Map<number, string>();
  const partOf = (id: number): string => {
    const known = partCache.get(id);
    if (known) return known;
    const stack = stackOf(id);
    const leaf = stack[0]!;
    let part: string | undefined;
    if (['(idle)', '(garbage collector)', '(program)'].includes(leaf.functionName)) part = leaf.functionName;
    else if (stack.some((f) => f.url.includes('node_modules/autocannon'))) part = 'load generator (autocannon)';
    else if (SOCKET_WRITES.has(leaf.functionName)) part = 'socket writes (native)';
    else
      for (const f of stack) {
        part = RULES.find(([, test]) => test(f))?.[0];
        if (part) break;
      }
    part ??= 'other';
    partCache.set(id, part);
    return part;
  };
  const parts = new Map<string, number>();
  const leaves = new Map<string, number>();
  let t = p.startTime;
  let totalUs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    if (t < from || t > to) continue;
    // A sample stands for the time up to the next one.
    const us = p.timeDeltas[i + 1] ?? dt;
    const id = p.samples[i]!;
    totalUs += us;
    const part = partOf(id);
    parts.set(part, (parts.get(part) ?? 0) + us);
    const leaf = byId.get(id)!.callFrame;
    const name = `${leaf.functionName || '(anonymous)'} ${leaf.url.replace(/^.*\/(node_modules|apps|bench|packages)\//, '$1/')}`;
    leaves.set(name, (leaves.get(name) ?? 0) + us);
  }
  return { totalUs, parts, leaves };
}

function main(argv: string[]) {
  const file = argv[0];
  if (!file) throw new Error('usage: node bench/profile-summary.ts FILE.cpuprofile [--from US --to US] [--requests N] [--top K]');
  const opt = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i > 0 ? Number(argv[i + 1]) : undefined;
  };
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const { totalUs, parts, leaves } = summarize(p, opt('from'), opt('to'));
  const requests = opt('requests');
  const busy = totalUs - (parts.get('(idle)') ?? 0);
  const row = (name: string, us: number) =>
    `${name.padEnd(52)} ${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / busy).toFixed(1).padStart(5)}% of busy${requests ? ` ${(us / requests).toFixed(0).padStart(6)} µs/request` : ''}`;
  console.log(`${file}: ${(totalUs / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy`);
  for (const [name, us] of [...parts].sort((a, b) => b[1] - a[1])) console.log(row(name, us));
  console.log('\nleaves (self time):');
  for (const [name, us] of [...leaves].sort((a, b) => b[1] - a[1]).slice(0, opt('top') ?? 25)) console.log(row(name, us));
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
