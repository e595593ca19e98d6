// Two real server processes (src/main.ts, as `npm start` runs it, each with its API and its worker) on one
// PostgreSQL database, with charges fired at both while automatic recharge is on. PostgreSQL only: PGlite is
// one embedded database in one process. In the slow set: two server starts take most of the time.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { asc, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { call, createTestEnv, eventually, onPostgres, signUp, type TestEnv } from '../helpers.ts';
import { ledgerEntries, payments, users } from '../../src/db/schema.ts';
import { balanceCents, ledgerSumCents } from '../../src/modules/billing/billing.service.ts';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const children: ChildProcess[] = [];
let env: TestEnv | undefined;

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await env?.close();
});

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function startServer(databaseUrl: string): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: serverDir,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      DATA_DIR: 'memory://',
      SESSION_SECRET: 'test-secret-test-secret-test-secret-0123',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      WEB_DIST: path.join(serverDir, 'no-web'),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}: ${stderr}`);
      return (await fetch(`${url}/healthz`).catch(() => null))?.ok ? true : null;
    },
    120_000,
    200,
  );
  return url;
}

describe('automatic recharge with two server processes on PostgreSQL', () => {
  it.runIf(onPostgres)(
    'charges fired at both: balance == ledger sum, never negative, exactly one recharge',
    async () => {
      env = await createTestEnv();
      const a = await signUp(env.app);
      const [u] = await env.ctx.db.select({ id: users.id }).from(users).where(eq(users.email, a.email));
      const userId = u!.id;
      expect((await call(env.app, 'POST', '/v1/user/payment/add', { token: a.session, body: { paymentMethodToken: 'fake-valid-nonce' } })).statusCode).toBe(200);
      expect(
        (await call(env.app, 'POST', '/v1/user/payment/edit', { token: a.session, body: { amountAutoRecharge: 20, minimumBalanceForAutoRecharge: 5 } }))
          .statusCode,
      ).toBe(200);
      const urls = await Promise.all([startServer(env.ctx.config.DATABASE_URL!), startServer(env.ctx.config.DATABASE_URL!)]);

      // $10.00 at $0.05 an add: the 101st add takes the balance under $5 once; the $20 recharge then keeps it
      // above $5 for the rest (300 adds = $15), so exactly one recharge whichever process runs it.
      const N = 300;
      let next = 0;
      const codes: number[] = [];
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next < N) {
            const i = next++;
            const res = await fetch(`${urls[i % 2]}/v1/trackings/add`, {
              method: 'POST',
              headers: { 'sm-api-token': a.session, 'sm-http-status': 'real', 'content-type': 'application/json' },
              body: JSON.stringify({ tid: `PROC${String(i).padStart(6, '0')}`, courier: 'ups', title: null }),
            });
            codes.push(res.status);
          }
        }),
      );
      expect(codes.filter((c) => c !== 200 && c !== 201 && c !== 402)).toEqual([]);
      const added = codes.filter((c) => c === 200 || c === 201).length;
      const recharges = await eventually(async () => {
        const rows = await env!.ctx.db.select().from(payments).where(eq(payments.userId, userId));
        return rows.length > 0 && rows.every((p) => p.status === 'submitted_for_settlement') ? rows : null;
      }, 30_000);
      expect(recharges.map((p) => [p.kind, p.amountCents])).toEqual([['auto_recharge', 2000]]);
      const balance = await balanceCents(env.ctx.db, userId);
      expect(balance).toBe(await ledgerSumCents(env.ctx.db, userId));
      expect(balance).toBe(1000 - 5 * added + 2000);
      const ledger = await env.ctx.db
        .select({ a: ledgerEntries.amountCents })
        .from(ledgerEntries)
        .where(eq(ledgerEntries.userId, userId))
        .orderBy(asc(ledgerEntries.id));
      let running = 0;
      let lowest = Infinity;
      for (const r of ledger) lowest = Math.min(lowest, (running += r.a));
      expect(lowest).toBeGreaterThanOrEqual(0);
    },
    240_000,
  );
});
