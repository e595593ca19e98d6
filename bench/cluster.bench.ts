// The production shape on PostgreSQL (docker-compose: api and worker processes): the same list and add load
// against one api process, then spread over two, with two worker processes beside them, in one run. Real OS
// processes (src/main.ts --role, started by the scale tests' Cluster helper); autocannon runs in this process.
// On a machine of two cores the api processes, the workers, PostgreSQL and the load generator share those cores,
// so "2 api / 1 api" says what a second process buys here, not on a bigger machine.
import autocannon from 'autocannon';
import pg from 'pg';
import { freshDatabase, startPostgres, type PrivatePostgres } from './lib/postgres.ts';
import type { BenchResult } from './lib/types.ts';
import { Cluster, api } from '../apps/server/test/scale/cluster.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;
const SEED = 1000;

async function exec(url: string, text: string, values: unknown[] = []) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(text, values);
  } finally {
    await c.end();
  }
}

type Load = { rps: number; p99: number; non2xx: number };

/** One autocannon per api process, all at once, CONNECTIONS split between them; req/s summed. */
async function spread(urls: string[], make: (url: string, connections: number) => autocannon.Options): Promise<Load> {
  const each = await Promise.all(urls.map((u) => autocannon(make(u, Math.max(1, Math.round(CONNECTIONS / urls.length))))));
  return {
    rps: Math.round(each.reduce((s, r) => s + r.requests.average, 0)),
    p99: Math.max(...each.map((r) => r.latency.p99)),
    non2xx: each.reduce((s, r) => s + r.non2xx + r.errors, 0),
  };
}

export default async function clusterBench(): Promise<BenchResult[]> {
  const server: PrivatePostgres | { skipped: string } = await startPostgres().catch((err: Error) => ({
    skipped: `could not start PostgreSQL: ${err.message}`,
  }));
  if ('skipped' in server) return [{ name: '2 api + 2 worker processes', metrics: {}, note: `skipped: ${server.skipped}` }];
  const cluster = new Cluster();
  try {
    const u = new URL(await freshDatabase(server.url, 'cluster'));
    const env = {
      DATABASE_URL: u.toString(),
      SESSION_SECRET: 'bench-cluster-secret-bench-cluster-0123',
      LOG_LEVEL: 'warn',
      QUEUE_POLL_SECONDS: '0.5',
    };
    // One at a time first: the first process migrates the database.
    const api1 = await cluster.start('api', env);
    const [api2] = await Promise.all([cluster.start('api', env), cluster.start('worker', env), cluster.start('worker', env)]);
    const signup = await api(api1.url, 'POST', '/v1/user/general/signup', undefined, {
      email: 'cluster@example.com',
      password: 'password123',
      repassword: 'password123',
      terms: true,
    });
    if (signup.status !== 201) throw new Error(`sign-up: ${signup.status} ${signup.body.message}`);
    const token = signup.body.payload.sessionToken as string;
    const { rows } = await exec(u.toString(), `select id from users where email = 'cluster@example.com'`);
    const userId = rows[0].id as string;
    await exec(u.toString(), `update billing_accounts set balance_cents = balance_cents + 1000000000 where user_id = $1`, [userId]);
    // Seeded trackings are not due for a day, so the workers refresh only what the adds bring.
    await exec(
      u.toString(),
      `insert into trackings (user_id, tid, courier, status, next_check_at) select $1, '1ZCLUSTER' || lpad(g::text, 8, '0'), 'ups', 'InTransit', now() + interval '1 day' from generate_series(1, ${SEED}) g`,
      [userId],
    );
    const headers = { 'sm-api-token': token, 'content-type': 'application/json', 'sm-http-status': 'real' };
    const list = (urls: string[]) =>
      spread(urls, (url, connections) => ({ url: `${url}/v1/trackings/get?numRecords=100`, headers, connections, duration: SECONDS }));
    let n = 0;
    const add = (urls: string[]) =>
      spread(urls, (url, connections) => ({
        url,
        connections,
        duration: SECONDS,
        requests: [
          {
            method: 'POST',
            path: '/v1/trackings/add',
            headers,
            setupRequest: (req: autocannon.Request) => ({
              ...req,
              body: JSON.stringify({ tid: `1ZCLADD${String(n++).padStart(9, '0')}`, courier: 'ups' }),
            }),
          },
        ],
      }));
    // Warm-up of both processes (JIT, pools, the token cache).
    await spread([api1.url, api2!.url], (url, connections) => ({
      url: `${url}/v1/trackings/get?numRecords=100`,
      headers,
      connections,
      duration: 2,
    }));
    const list1 = await list([api1.url]);
    const list2 = await list([api1.url, api2!.url]);
    const add1 = await add([api1.url]);
    const add2 = await add([api1.url, api2!.url]);
    const row = (label: string, one: Load, two: Load): BenchResult => ({
      name: `${label}: 1 api process vs 2`,
      setup: `${server.version}, 2 workers`,
      metrics: {
        '1 api req/s': one.rps,
        '2 api req/s': two.rps,
        '2 api / 1 api': `${Math.round((two.rps / one.rps) * 100)}%`,
        '1 api p99 ms': one.p99,
        '2 api p99 ms': two.p99,
        'non-2xx': one.non2xx + two.non2xx,
      },
      note: `${CONNECTIONS} connections in all, ${SECONDS} s each, one account with ${SEED} trackings`,
    });
    return [row('list 100 trackings', list1, list2), row('add a tracking', add1, add2)];
  } finally {
    await cluster.stopAll();
    server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await clusterBench(), null, 2));
  process.exit(0);
}
