// Resend activation carries no token (product rules §6, the spec's verification page): a signed-out visitor gives
// the address. The answer is the same whether or not an account waits for activation there, only such an account
// gets a mail, and the call is limited per client address. With a token it still resends to that account.
import { describe, expect, it } from 'vitest';
import { MSG } from '@shiptrail/contract';
import { call, envForFile, signUp, startSmtpEnv, type SmtpCapture, type TestEnv } from '../helpers.ts';

let env: TestEnv;
let smtp: SmtpCapture;
envForFile(startSmtpEnv, (started) => ({ env, smtp } = started));

const verifyMailsTo = (email: string) =>
  smtp.mails.filter((m) => m.subject === 'Verify your email address' && (m.to as { text: string }).text === email);
/** A GET from one client address (the limit counts per address), with a token or without. */
async function get(url: string, remoteAddress: string, token?: string) {
  const res = await env.app.inject({
    method: 'GET',
    url,
    remoteAddress,
    headers: { 'sm-http-status': 'real', ...(token ? { 'sm-api-token': token } : {}) },
  });
  return { statusCode: res.statusCode, body: res.json() };
}
const resend = (email: string) => get(`/v1/user/email/verify/resend?email=${encodeURIComponent(email)}`, '198.51.100.7');

describe('GET /v1/user/email/verify/resend without a token', () => {
  it('sends a new activation link to an unverified account, and the same answer for anyone else', async () => {
    const a = await signUp(env.app);
    await smtp.waitFor((m) => m.subject === 'Verify your email address' && (m.to as { text: string }).text === a.email);
    const first = verifyMailsTo(a.email).length;

    const known = await resend(a.email);
    expect(known.statusCode).toBe(200);
    expect(known.body).toMatchObject({ code: 200, status: 'success', message: MSG.verificationResentIfAny, payload: null });
    const mail = await smtp.waitFor(
      (m) =>
        m.subject === 'Verify your email address' &&
        (m.to as { text: string }).text === a.email &&
        verifyMailsTo(a.email).indexOf(m) >= first,
    );
    const key = /\/verify\/([\w-]+)/.exec(mail.text ?? '')![1]!;
    expect((await call(env.app, 'GET', `/v1/user/email/verify/${key}`)).body.status).toBe('success');

    // No account, or one already verified: the very same reply, and no mail.
    const unknown = await resend('nobody-here@example.com');
    expect(unknown.body).toEqual(known.body);
    const verified = await resend(a.email);
    expect(verified.body).toEqual(known.body);
    await new Promise((r) => setTimeout(r, 1500));
    expect(verifyMailsTo('nobody-here@example.com')).toHaveLength(0);
    expect(verifyMailsTo(a.email)).toHaveLength(first + 1);
  });

  it("asks for the address in the spec's words, and still works with a session", async () => {
    const bad = await get('/v1/user/email/verify/resend', '198.51.100.8');
    expect(bad.body).toMatchObject({ code: 400, message: MSG.emailRequired });
    const junk = await get('/v1/user/email/verify/resend?email=nope', '198.51.100.8');
    expect(junk.body).toMatchObject({ code: 400, message: 'Invalid email address' });
    const b = await signUp(env.app);
    const withSession = await get('/v1/user/email/verify/resend', '198.51.100.8', b.session);
    expect(withSession.body).toMatchObject({ code: 200, message: MSG.verificationResent });
    const forged = await get('/v1/user/email/verify/resend', '198.51.100.8', 'sess_forged');
    expect(forged.statusCode).toBe(401);
  });

  it('is limited per client address', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 11; i++)
      codes.push((await get(`/v1/user/email/verify/resend?email=flood${i}@example.com`, '198.51.100.9')).statusCode);
    expect(codes.slice(0, 10).every((c) => c === 200)).toBe(true);
    expect(codes[10]).toBe(429);
  });
});
