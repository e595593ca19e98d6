import { describe, expect, it } from 'vitest';
import { call, envForFile, startSmtpEnv, type SmtpCapture, type TestEnv } from '../helpers.ts';

// The whole account lifecycle through the API, with mail delivered to a real SMTP server on loopback.
describe('account journey', () => {
  let env: TestEnv;
  let smtp: SmtpCapture;
  envForFile(startSmtpEnv, (started) => ({ env, smtp } = started));

  it('signs up, verifies by mail, logs in, updates, rotates the key and signs out', async () => {
    const { app } = env;
    const email = 'grace@example.com';
    const signup = await call(app, 'POST', '/v1/user/general/signup/', {
      body: {
        email: 'Grace@Example.com',
        password: 'hopper1906',
        repassword: 'hopper1906',
        terms: true,
        firstName: 'Grace',
        userType: 'company',
        timeZone: 'America/New_York',
      },
    });
    expect(signup.statusCode).toBe(201);
    expect(signup.body).toMatchObject({ code: 201, status: 'success' });
    const { profile, sessionToken } = signup.body.payload;
    expect(profile).toMatchObject({
      email,
      balance: 10,
      emailVerified: false,
      userType: 'company',
      showWizard: true,
      timeZone: 'America/New_York',
    });
    expect(profile.token).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(signup.body.payload.version).toMatch(/^[A-Za-z0-9]{30}$/);

    // Unverified: the info call carries the emailIsNotVerifed alert.
    let info = await call(app, 'GET', '/v1/user/info?v=1', { token: sessionToken });
    expect(info.body.payload.alerts.general.map((a: { name: string }) => a.name)).toContain('emailIsNotVerifed');
    expect(info.body.payload.dashboard).toMatchObject({ Shipments: 0, Delivered: 0, Cost: 0, shmShipments: 0 });

    const mail = await smtp.waitFor((m) => m.subject === 'Verify your email address');
    expect((mail.to as { text: string }).text).toBe(email);
    const key = /\/verify\/([\w-]+)/.exec(mail.text ?? '')![1]!;
    expect(mail.html).toContain(`/verify/${key}`);

    const verified = await call(app, 'GET', `/v1/user/email/verify/${key}`);
    expect(verified.body).toMatchObject({ status: 'success', payload: { profile: { emailVerified: true } } });
    // Keys are single-use.
    const again = await call(app, 'GET', `/v1/user/email/verify/${key}`);
    expect(again.body).toMatchObject({ code: 400, status: 'fail', message: 'Verification Error' });

    const login = await call(app, 'POST', '/v1/user/general/login', { body: { email, password: 'hopper1906' } });
    expect(login.statusCode).toBe(200);
    const session = login.body.payload.sessionToken as string;
    expect(session).not.toBe(sessionToken);
    info = await call(app, 'GET', '/v1/user/info', { token: session });
    expect(info.body.payload.alerts.general).toHaveLength(0);

    const upd = await call(app, 'POST', '/v1/user/general/update', {
      token: session,
      body: {
        profile: { firstName: 'Grace', lastName: 'Hopper', phone: '+1 (202) 555-0143', company: 'Navy', lastName2: undefined },
        settings: { themeid: 'C', receiveNotification: { email: { triggers: { Delivered: true }, endpoint: '' } } },
      },
    });
    expect(upd.body.status).toBe('success');
    expect(upd.body.payload.profile).toMatchObject({ lastName: 'Hopper', phone: '(202) 555-0143', company: 'Navy' });
    expect(upd.body.payload.settings.themeid).toBe('C');
    expect(upd.body.payload.settings.receiveNotification.email.triggers.Delivered).toBe(true);
    expect(upd.body.payload.version).not.toBe(info.body.payload.version);

    // Both the API key and the session authorise; regenerating the key kills the old key only.
    const oldKey = upd.body.payload.profile.token as string;
    expect((await call(app, 'GET', '/v1/user/info', { token: oldKey })).statusCode).toBe(200);
    const gen = await call(app, 'POST', '/v1/user/general/generatenewtoken', { token: session });
    const newKey = gen.body.payload.token as string;
    expect(newKey).not.toBe(oldKey);
    expect((await call(app, 'GET', '/v1/user/info', { token: oldKey })).body).toMatchObject({ code: 401, status: 'fail' });
    expect((await call(app, 'GET', '/v1/user/info', { token: newKey })).statusCode).toBe(200);
    expect((await call(app, 'GET', '/v1/user/info', { token: session })).statusCode).toBe(200);

    const out = await call(app, 'POST', '/v1/user/general/logout', { token: session });
    expect(out.body.status).toBe('success');
    expect((await call(app, 'GET', '/v1/user/info', { token: session })).statusCode).toBe(401);
    // The first session (from sign-up) is still alive: sign-out ends only its own session.
    expect((await call(app, 'GET', '/v1/user/info', { token: sessionToken })).statusCode).toBe(200);
  });

  it('recovers a password by mail; the reset key works once and ends old sessions', async () => {
    const { app } = env;
    const email = 'linus@example.com';
    const s = await call(app, 'POST', '/v1/user/general/signup', {
      body: { email, password: 'penguin123', repassword: 'penguin123', terms: true },
    });
    const oldSession = s.body.payload.sessionToken;
    const rec = await call(app, 'GET', `/v1/user/password/recover/${encodeURIComponent(email)}`);
    expect(rec.body.status).toBe('success');
    // Unknown addresses get the same answer (no account enumeration).
    const recUnknown = await call(app, 'GET', '/v1/user/password/recover/nobody@example.com');
    expect(recUnknown.body.message).toBe(rec.body.message);
    const mail = await smtp.waitFor((m) => m.subject === 'Reset your Shiptrail password' && (m.to as { text: string }).text === email);
    const key = /\/password\/reset\/([\w-]+)/.exec(mail.text ?? '')![1]!;
    const short = await call(app, 'POST', '/v1/user/general/passwordreset', { body: { password: '123', verifycode: key } });
    expect(short.body).toMatchObject({ code: 400, message: 'Must be 8 characters or greater than' });
    // Seven characters: sign-up refuses them, so a reset does too (decision 103).
    const seven = await call(app, 'POST', '/v1/user/general/passwordreset', { body: { password: 'abcdef1', verifycode: key } });
    expect(seven.body).toMatchObject({ code: 400, message: 'Must be 8 characters or greater than' });
    const reset = await call(app, 'POST', '/v1/user/general/passwordreset', { body: { password: 'newpass99', verifycode: key } });
    expect(reset.body.status).toBe('success');
    const reuse = await call(app, 'POST', '/v1/user/general/passwordreset', { body: { password: 'other999', verifycode: key } });
    expect(reuse.body.status).toBe('fail');
    expect((await call(app, 'GET', '/v1/user/info', { token: oldSession })).statusCode).toBe(401);
    expect((await call(app, 'POST', '/v1/user/general/login', { body: { email, password: 'penguin123' } })).statusCode).toBe(401);
    expect((await call(app, 'POST', '/v1/user/general/login', { body: { email, password: 'newpass99' } })).statusCode).toBe(200);
  });

  it('changes the password only with the current one', async () => {
    const { app } = env;
    const s = await call(app, 'POST', '/v1/user/general/signup', {
      body: { email: 'pw@example.com', password: 'original1', repassword: 'original1', terms: true },
    });
    const token = s.body.payload.sessionToken;
    const wrong = await call(app, 'POST', '/v1/user/general/passwordupdate', {
      token,
      body: { password: 'notright', newpassword: 'changed12' },
    });
    expect(wrong.body).toMatchObject({ code: 400, message: 'Current password is not correct' });
    const ok = await call(app, 'POST', '/v1/user/general/passwordupdate', {
      token,
      body: { password: 'original1', newpassword: 'changed12' },
    });
    expect(ok.body.status).toBe('success');
    expect(
      (await call(app, 'POST', '/v1/user/general/login', { body: { email: 'pw@example.com', password: 'changed12' } })).statusCode,
    ).toBe(200);
  });

  it('sends contact, support and invite mails, and records the referral on sign-up', async () => {
    const { app } = env;
    const inviter = await call(app, 'POST', '/v1/user/general/signup', {
      body: { email: 'inviter@example.com', password: 'inviter123', repassword: 'inviter123', terms: true, firstName: 'Ida' },
    });
    const token = inviter.body.payload.sessionToken;
    const contact = await call(app, 'POST', '/v1/user/general/getintouch', {
      body: { name: 'Jo', email: 'jo@example.com', phone: '+12025550143', message: 'Hello there' },
    });
    expect(contact.body.status).toBe('success');
    await smtp.waitFor((m) => (m.subject ?? '').startsWith('New contact message') && (m.text ?? '').includes('Hello there'));
    const support = await call(app, 'POST', '/v1/user/general/supportrequest', { token, body: { message: 'Help me' } });
    expect(support.body).toMatchObject({ status: 'success', message: 'sent' });
    await smtp.waitFor((m) => (m.subject ?? '').startsWith('New support request') && (m.text ?? '').includes('Help me'));
    const invite = await call(app, 'POST', '/v1/user/general/invitefriend/', { token, body: { email: 'friend@example.com' } });
    expect(invite.body.status).toBe('success');
    const inviteMail = await smtp.waitFor((m) => (m.to as { text: string }).text === 'friend@example.com');
    const code = /\/referrer\/(\w+)/.exec(inviteMail.text ?? '')![1]!;
    expect(code).toBe(inviter.body.payload.profile.referralCode);
    const friend = await call(app, 'POST', '/v1/user/general/signup', {
      body: { email: 'friend@example.com', password: 'friend123', repassword: 'friend123', terms: true, referrer: code },
    });
    expect(friend.statusCode).toBe(201);
    const { referrals, users } = await import('../../src/db/schema.ts');
    const { eq } = await import('drizzle-orm');
    const [row] = await env.ctx.db.select().from(referrals).where(eq(referrals.email, 'friend@example.com'));
    const [friendRow] = await env.ctx.db.select().from(users).where(eq(users.email, 'friend@example.com'));
    expect(row!.invitedUserId).toBe(friendRow!.id);
    expect(friendRow!.referredBy).toBe(row!.inviterId);
  });
});
