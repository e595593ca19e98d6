// A route's limit per client address is one limit across api processes: the counts live in PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hitWindow } from '../../src/lib/shared-rate-limit-store.ts';
import { call, createTestEnv, onPostgres, type TestEnv } from '../helpers.ts';

let a: TestEnv;
let b: TestEnv | undefined;

beforeAll(async () => {
  a = await createTestEnv();
  // A second api process on the same database (PostgreSQL only: PGlite is one process).
  if (onPostgres) b = await createTestEnv({ DATABASE_URL: a.ctx.database.url! });
});

afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe('shared route limits', () => {
  it('a window counts hits and starts over once it has passed', async () => {
    const key = `test:${Math.random()}`;
    expect((await hitWindow(a.ctx.db, key, 300)).current).toBe(1);
    const second = await hitWindow(a.ctx.db, key, 300);
    expect(second.current).toBe(2);
    expect(second.ttl).toBeGreaterThan(0);
    expect(second.ttl).toBeLessThanOrEqual(300);
    await new Promise((r) => setTimeout(r, 350));
    expect((await hitWindow(a.ctx.db, key, 300)).current).toBe(1);
  });

  it.runIf(onPostgres)(
    'two api processes: the 11th password-recovery request from one address is refused, whichever process gets it',
    async () => {
      const apps = [a.app, b!.app];
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const res = await apps[i % 2]!.inject({
          method: 'GET',
          url: `/v1/user/password/recover/nobody${i}%40example.com`,
          headers: { 'sm-http-status': 'real' },
          remoteAddress: '198.19.200.7',
        });
        statuses.push(res.statusCode);
      }
      expect(statuses.slice(0, 10).every((s) => s < 400)).toBe(true);
      expect(statuses[10]).toBe(429);
      // Another address is not affected.
      const other = await call(b!.app, 'GET', '/v1/user/password/recover/someone%40example.com', { headers: {} });
      expect(other.statusCode).toBeLessThan(400);
    },
  );
});
