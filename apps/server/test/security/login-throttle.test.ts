// Login throttling: attempts are reserved before the password is checked (parallel guesses cannot all
// pass), per (account, IP) with backoff, and the owner elsewhere is not locked out by an attacker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG } from '@shiptrail/contract';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';

const MAX = 10;
let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ LOGIN_MAX_ATTEMPTS: String(MAX), LOGIN_WINDOW_MINUTES: '15' });
});
afterAll(() => env.close());

let net = 0;
/** A new /24 of loopback addresses per test, so the per-IP route limit never decides. */
const subnet = () => `127.${20 + net++}`;
const login = (email: string, password: string, ip: string) =>
  env.app
    .inject({ method: 'POST', url: '/v1/user/general/login', remoteAddress: ip, payload: { email, password } })
    .then((r) => ({ ...r.json(), retryAfter: r.headers['retry-after'] }));

describe('parallel guesses', () => {
  it(`40 at once from one address: at most ${MAX} evaluated, and the right password is refused once over the limit`, async () => {
    const a = await signUp(env.app);
    const ip = `${subnet()}.0.1`;
    const guesses = Array.from({ length: 40 }, (_, i) => (i === 37 ? 'password123' : `wrong-${i}`));
    const rs = await Promise.all(guesses.map((p) => login(a.email, p, ip)));
    const evaluated = rs.filter((r) => r.code === 401 || r.code === 200);
    expect(evaluated.length).toBeLessThanOrEqual(MAX);
    expect(rs[37]).toMatchObject({ code: 429, message: MSG.tooManyAttempts });
    expect(Number(rs[37].retryAfter)).toBeGreaterThan(0);
  });

  it('40 at once from 40 addresses: at most the per-account ceiling evaluated, then the right one refused', async () => {
    const a = await signUp(env.app);
    const s = subnet();
    // All wrong: on PostgreSQL the 40 reserve their attempts in whatever order the pool runs them, so which of them
    // are evaluated is not known in advance; how many is.
    const rs = await Promise.all(Array.from({ length: 40 }, (_, i) => login(a.email, `wrong-${i}`, `${s}.1.${i + 1}`)));
    const evaluated = rs.filter((r) => r.code === 401);
    expect(evaluated.length).toBeLessThanOrEqual(MAX * 3);
    expect(rs.filter((r) => r.code === 429)).toHaveLength(40 - evaluated.length);
    // The ceiling is reached: the right password, from yet another address, is refused too (no oracle).
    expect(await login(a.email, 'password123', `${s}.1.41`)).toMatchObject({ code: 429, message: MSG.tooManyAttempts });
  });
});

describe('the owner is not locked out', () => {
  it("after an attacker's burst from one address, the owner logs in from another", async () => {
    const a = await signUp(env.app);
    const s = subnet();
    const attacker = `${s}.2.1`;
    for (let i = 0; i < MAX; i++) expect((await login(a.email, `wrong-${i}`, attacker)).code).toBe(401);
    const blocked = await login(a.email, 'password123', attacker);
    expect(blocked).toMatchObject({ code: 429, message: MSG.tooManyAttempts });
    expect(Number(blocked.retryAfter)).toBeGreaterThan(0);
    expect((await login(a.email, 'password123', `${s}.2.2`)).code).toBe(200);
  });

  it('backoff grows for the attacking address: each attempt after the free ones waits longer', async () => {
    const a = await signUp(env.app);
    const s = subnet();
    const ip = `${s}.3.1`;
    const t0 = env.ctx.now;
    let now = Date.now();
    env.ctx.now = () => new Date(now);
    try {
      for (let i = 0; i < MAX; i++) await login(a.email, 'wrongpass', ip);
      const waits: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await login(a.email, 'wrongpass', ip);
        expect(r.code).toBe(429);
        waits.push(Number(r.retryAfter));
        now += Number(r.retryAfter) * 1000;
        expect((await login(a.email, 'wrongpass', ip)).code).toBe(401); // one more guess, once the wait is over
      }
      expect(waits[1]).toBeGreaterThan(waits[0]!);
      expect(waits[2]).toBeGreaterThan(waits[1]!);
    } finally {
      env.ctx.now = t0;
    }
  });

  it("a distributed attack over the account's ceiling: the owner's usual address still gets in, a new one does not", async () => {
    const a = await signUp(env.app); // signs up, and so has a session, from its own client address
    const s = subnet();
    // From many addresses, a few guesses each: the per-address backoff never applies, the ceiling does.
    for (let i = 0; i < MAX * 3; i++) expect((await login(a.email, 'wrongpass', `${s}.4.${i + 1}`)).code).toBe(401);
    expect((await login(a.email, 'wrongpass', `${s}.4.200`)).code).toBe(429);
    expect((await login(a.email, 'password123', `${s}.4.201`)).code).toBe(429);
    expect((await login(a.email, 'password123', a.address)).code).toBe(200);
  });
});
