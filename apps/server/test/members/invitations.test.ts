import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { INVITATION_SENDS_PER_HOUR, INVITATION_TTL_DAYS, INVITE_MSG, MSG } from '@shiptrail/contract';
import type { ParsedMail } from 'mailparser';
import { courierInvitations, ledgerEntries, users } from '../../src/db/schema.ts';
import { sha256 } from '../../src/lib/crypto.ts';
import { insertEntryOnce } from '../../src/modules/billing/billing.repository.ts';
import { balanceCents } from '../../src/modules/billing/billing.service.ts';
import { call, signUp, type SmtpCapture, type TestEnv } from '../helpers.ts';
import { company, courier } from '../shipments/fixtures.ts';
import { mailTo, startNotificationEnv, type FakeTwilio, type NotificationEnv } from '../notifications/fixtures.ts';

// Courier invitations (docs/decisions/096) and accounts made by addmember (097), with a real SMTP server and a
// fake Twilio on loopback.
let ne: NotificationEnv | undefined;
let env: TestEnv;
let smtp: SmtpCapture;
let twilio: FakeTwilio;
beforeAll(async () => {
  ne = await startNotificationEnv();
  ({ env, smtp, twilio } = ne);
});
afterAll(() => ne?.close());

let n = 0;
const fresh = (name = 'dana') => `${name}${Date.now()}${n++}@example.com`;
const linkIn = (text: string) => /http:\/\/shiptrail\.test\/invite\/([A-Za-z0-9_-]+)/.exec(text)?.[1];
const mailFor = (to: string, subject: RegExp): Promise<ParsedMail> =>
  smtp.waitFor((m) => mailTo(m).includes(to) && subject.test(m.subject ?? ''));
const mailsFor = (to: string) => smtp.mails.filter((m) => mailTo(m).includes(to));
const invite = (token: string, body: Record<string, unknown>) => call(env.app, 'POST', '/v1/user/invitations/create', { token, body });
const accept = (token: string, password = 'courierpass9', repassword = password) =>
  call(env.app, 'POST', '/v1/invitations/accept', { body: { token, password, repassword } });
const userByEmail = async (email: string) => (await env.ctx.db.select().from(users).where(eq(users.email, email)))[0];

describe('courier invitations', () => {
  it('invites by email and SMS ($0.04), lists it pending, and the courier sets a password and is signed in', async () => {
    const c = await company(env.app, { company: 'SwiftParcel Couriers' });
    const email = fresh();
    const r = await invite(c.session, { email: email.toUpperCase(), firstName: 'Dana', lastName: 'Lee', phone: '+1 213 555 0142' });
    expect(r.statusCode).toBe(201);
    expect(r.body.message).toBe('Invitation sent by email and SMS ($0.04)');
    const sentAt = Date.parse(r.body.payload.sentAt);
    expect(r.body.payload).toMatchObject({
      email,
      firstName: 'Dana',
      lastName: 'Lee',
      phone: '(213) 555-0142',
      state: 'pending',
      sends: 1,
    });
    expect(Date.parse(r.body.payload.expiresAt) - sentAt).toBe(INVITATION_TTL_DAYS * 86400_000);

    const mail = await mailFor(email, /SwiftParcel Couriers invited you/);
    expect(mail.subject).toBe('SwiftParcel Couriers invited you to Shiptrail as a courier');
    expect(mail.text).toContain('Hi Dana,');
    expect(mail.text).toContain(`valid for ${INVITATION_TTL_DAYS} days and can be used once`);
    const token = linkIn(mail.text ?? '')!;
    expect(token).toBeTruthy();
    expect(mail.html).toContain(`http://shiptrail.test/invite/${token}`);
    const sms = twilio.requests.find((x) => x.to === '+12135550142' && x.body.includes(token));
    expect(sms?.body).toBe(
      `SwiftParcel Couriers invited you to Shiptrail as a courier. Set your password within ${INVITATION_TTL_DAYS} days: http://shiptrail.test/invite/${token}`,
    );
    const me = await userByEmail(c.email);
    const charges = await env.ctx.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, me!.id), eq(ledgerEntries.kind, 'sms')));
    expect(charges).toEqual([expect.objectContaining({ amountCents: -4, ref: `invitation:${r.body.payload.id}:1` })]);

    // Stored hashed: the token itself is nowhere in the database.
    const [row] = await env.ctx.db.select().from(courierInvitations).where(eq(courierInvitations.id, r.body.payload.id));
    expect(row!.tokenHash).toBe(sha256(token));
    expect(JSON.stringify(row)).not.toContain(token);

    const list = await call(env.app, 'GET', '/v1/user/invitations/list', { token: c.apiKey });
    expect(list.body.payload).toEqual([r.body.payload]);
    // Nobody exists until the courier accepts.
    expect(await userByEmail(email)).toBeUndefined();

    const view = await call(env.app, 'GET', `/v1/invitations/${token}`);
    expect(view.body.payload).toEqual({
      company: 'SwiftParcel Couriers',
      email,
      firstName: 'Dana',
      state: 'pending',
      expiresAt: r.body.payload.expiresAt,
      reason: null,
      existingAccount: false,
    });

    // Sign-up's password rules.
    const short = await accept(token, 'short', 'short');
    expect(short.statusCode).toBe(400);
    expect(short.body.payload.errors).toEqual({ password: MSG.passwordMin8 });
    const mismatch = await accept(token, 'courierpass9', 'courierpass8');
    expect(mismatch.body.payload.errors).toEqual({ repassword: MSG.passwordsMismatch });

    const ok = await accept(token);
    expect(ok.statusCode).toBe(200);
    expect(ok.body.message).toBe(INVITE_MSG.accepted);
    expect(ok.body.payload.profile).toMatchObject({
      email,
      role: 'courier',
      emailVerified: true,
      firstName: 'Dana',
      lastName: 'Lee',
      phone: '(213) 555-0142',
    });
    const info = await call(env.app, 'GET', '/v1/user/info', { token: ok.body.payload.sessionToken });
    expect(info.body.payload.profile.role).toBe('courier');
    const assigned = await call(env.app, 'POST', '/v1/shipment/getassigned', { token: ok.body.payload.sessionToken });
    expect(assigned.statusCode).toBe(200);
    const login = await call(env.app, 'POST', '/v1/user/general/login', { body: { email, password: 'courierpass9' } });
    expect(login.statusCode).toBe(200);
    const members = await call(env.app, 'POST', '/v1/user/general/getmembers', { token: c.session });
    expect(members.body.payload.map((m: { email: string }) => m.email)).toEqual([email]);

    // Single use.
    const again = await accept(token, 'otherpass99');
    expect(again.statusCode).toBe(400);
    expect(again.body.message).toBe(INVITE_MSG.used);
    expect((await call(env.app, 'GET', `/v1/invitations/${token}`)).body.payload).toMatchObject({
      state: 'accepted',
      reason: INVITE_MSG.used,
    });
    expect((await call(env.app, 'GET', '/v1/user/invitations/list', { token: c.session })).body.payload[0].state).toBe('accepted');
  });

  it('resend issues a new link and voids the old; revoke voids it; an expired link says so', async () => {
    const c = await company(env.app);
    const email = fresh('sam');
    const r = await invite(c.session, { email, firstName: 'Sam', lastName: 'Ray' });
    expect(r.body.message).toBe('Invitation sent by email');
    const first = linkIn((await mailFor(email, /invited you/)).text ?? '')!;
    const again = await invite(c.session, { email, firstName: 'Sam', lastName: 'Ray' });
    expect(again.statusCode).toBe(409);
    expect(again.body.message).toBe(INVITE_MSG.alreadyInvited);

    const re = await call(env.app, 'POST', '/v1/user/invitations/resend', { token: c.session, body: { id: r.body.payload.id } });
    expect(re.statusCode).toBe(200);
    expect(re.body.message).toBe('Invitation sent again by email: the earlier link no longer works');
    expect(re.body.payload.sends).toBe(2);
    await smtp.waitFor(() => mailsFor(email).length === 2);
    const second = linkIn(mailsFor(email)[1]!.text ?? '')!;
    expect(second).not.toBe(first);
    const old = await accept(first);
    expect(old.statusCode).toBe(404);
    expect(old.body.message).toBe(INVITE_MSG.linkInvalid);
    expect((await call(env.app, 'GET', `/v1/invitations/${first}`)).statusCode).toBe(404);

    // Expired: past its expiry the link says so, and a resend opens it again with a new one.
    await env.ctx.db
      .update(courierInvitations)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(courierInvitations.id, r.body.payload.id));
    const expired = await accept(second);
    expect(expired.statusCode).toBe(400);
    expect(expired.body.message).toBe(INVITE_MSG.expired);
    expect((await call(env.app, 'GET', `/v1/invitations/${second}`)).body.payload).toMatchObject({
      state: 'expired',
      reason: INVITE_MSG.expired,
    });
    expect((await call(env.app, 'GET', '/v1/user/invitations/list', { token: c.session })).body.payload[0].state).toBe('expired');
    await call(env.app, 'POST', '/v1/user/invitations/resend', { token: c.session, body: { id: r.body.payload.id } });
    await smtp.waitFor(() => mailsFor(email).length === 3);
    const third = linkIn(mailsFor(email)[2]!.text ?? '')!;
    expect((await call(env.app, 'GET', `/v1/invitations/${third}`)).body.payload.state).toBe('pending');

    const rev = await call(env.app, 'POST', '/v1/user/invitations/revoke', { token: c.session, body: { id: r.body.payload.id } });
    expect(rev.statusCode).toBe(200);
    expect(rev.body.message).toBe(INVITE_MSG.revoked);
    expect(rev.body.payload.state).toBe('revoked');
    const gone = await accept(third);
    expect(gone.statusCode).toBe(400);
    expect(gone.body.message).toBe(INVITE_MSG.withdrawn);
    const twice = await call(env.app, 'POST', '/v1/user/invitations/revoke', { token: c.session, body: { id: r.body.payload.id } });
    expect(twice.statusCode).toBe(409);
    expect(
      (await call(env.app, 'POST', '/v1/user/invitations/resend', { token: c.session, body: { id: r.body.payload.id } })).statusCode,
    ).toBe(409);
    // A revoked address may be invited again.
    expect((await invite(c.session, { email, firstName: 'Sam', lastName: 'Ray' })).statusCode).toBe(201);
  });

  it("owner only: a courier or a person cannot invite, and another company's invitation is not found", async () => {
    const c = await company(env.app);
    const k = await courier(env.app, c.session);
    const byCourier = await invite(k.session, { email: fresh(), firstName: 'A', lastName: 'B' });
    expect(byCourier.statusCode).toBe(403);
    expect((await call(env.app, 'GET', '/v1/user/invitations/list', { token: k.session })).statusCode).toBe(403);
    const p = await signUp(env.app);
    expect((await invite(p.session, { email: fresh(), firstName: 'A', lastName: 'B' })).statusCode).toBe(403);
    const r = await invite(c.session, { email: fresh(), firstName: 'A', lastName: 'B' });
    const other = await company(env.app);
    for (const path of ['resend', 'revoke']) {
      const x = await call(env.app, 'POST', `/v1/user/invitations/${path}`, { token: other.session, body: { id: r.body.payload.id } });
      expect(x.statusCode).toBe(404);
      expect(x.body.message).toBe(INVITE_MSG.notFound);
    }
    expect((await call(env.app, 'GET', '/v1/user/invitations/list', { token: other.session })).body.payload).toEqual([]);
    expect((await call(env.app, 'GET', '/v1/user/invitations/list')).statusCode).toBe(401);
  });

  it("bad input gets the form's messages, never a 500", async () => {
    const c = await company(env.app);
    const r = await invite(c.session, { email: 'nope', firstName: ' ', phone: '555' });
    expect(r.statusCode).toBe(400);
    expect(r.body.payload.errors).toEqual({
      email: MSG.emailInvalid,
      firstName: MSG.firstNameRequired,
      lastName: MSG.lastNameRequired,
      phone: MSG.phoneInvalid,
    });
    expect((await call(env.app, 'POST', '/v1/user/invitations/resend', { token: c.session, body: { id: 'x' } })).statusCode).toBe(400);
    expect((await call(env.app, 'POST', '/v1/invitations/accept', { body: {} })).body.payload.errors).toMatchObject({
      token: INVITE_MSG.linkInvalid,
      password: MSG.passwordRequired,
    });
    const long = await call(env.app, 'GET', `/v1/invitations/${'a'.repeat(300)}`);
    expect(long.statusCode).toBe(404);
    // An address that has an account already.
    const taken = await invite(c.session, { email: c.email, firstName: 'A', lastName: 'B' });
    expect(taken.statusCode).toBe(409);
    expect(taken.body.message).toBe(MSG.emailTaken);
  });

  it(`limits invitation sends to ${INVITATION_SENDS_PER_HOUR} an hour per company`, async () => {
    const c = await company(env.app);
    for (let i = 0; i < INVITATION_SENDS_PER_HOUR; i++) {
      const r = await invite(c.session, { email: `limit${i}-${fresh()}`, firstName: 'L', lastName: String(i) });
      expect(r.statusCode).toBe(201);
    }
    const over = await invite(c.session, { email: fresh('over'), firstName: 'L', lastName: 'X' });
    expect(over.statusCode).toBe(429);
    expect(over.body.message).toBe(INVITE_MSG.tooMany);
    // Another company is not held up.
    const other = await company(env.app);
    expect((await invite(other.session, { email: fresh(), firstName: 'A', lastName: 'B' })).statusCode).toBe(201);
  });

  it('with too little balance the mail goes and the reply says the SMS did not', async () => {
    const c = await company(env.app);
    const me = await userByEmail(c.email);
    const bal = await balanceCents(env.ctx.db, me!.id);
    await insertEntryOnce(env.ctx.db, { userId: me!.id, amountCents: -(bal - 3), kind: 'tracking', ref: 'drain', description: '' });
    const email = fresh();
    const r = await invite(c.session, { email, firstName: 'Dana', lastName: 'Lee', phone: '2135550177' });
    expect(r.statusCode).toBe(201);
    expect(r.body.message).toBe(`Invitation sent by email. ${INVITE_MSG.smsNoBalance}`);
    await mailFor(email, /invited you/);
    expect(twilio.requests.some((x) => x.to === '+12135550177')).toBe(false);
  });
});

describe('accounts made by addmember with an owner-chosen password (decision 097)', () => {
  const addmember = (token: string, email: string) =>
    call(env.app, 'POST', '/v1/user/general/addmember', {
      token,
      body: { email, role: 'courier', firstName: 'Vic', lastName: 'Tim', phone: '2025550150', password: 'AttackerKnows1!' },
    });

  it('still works for old clients, but starts unverified and the address is told', async () => {
    const c = await company(env.app, { company: 'Squat Co' });
    const email = fresh('victim');
    const r = await addmember(c.session, email);
    expect(r.statusCode).toBe(201);
    const login = await call(env.app, 'POST', '/v1/user/general/login', { body: { email, password: 'AttackerKnows1!' } });
    expect(login.statusCode).toBe(200);
    expect(login.body.payload.profile.emailVerified).toBe(false);
    const mail = await mailFor(email, /Squat Co added you as a courier/);
    expect(mail.text).toContain('This is not me');
    // Not an invitation of the owner's list: it is the address's own business.
    expect((await call(env.app, 'GET', '/v1/user/invitations/list', { token: c.session })).body.payload).toEqual([]);
  });

  it('sign-up on the address gets a link that releases it; then the owner signs up', async () => {
    const c = await company(env.app, { company: 'Squat Co' });
    const email = fresh('victim');
    await addmember(c.session, email);
    await mailFor(email, /added you as a courier/);
    const up = await call(env.app, 'POST', '/v1/user/general/signup', {
      body: { email, password: 'password123', repassword: 'password123', terms: true },
    });
    expect(up.statusCode).toBe(409);
    expect(up.body.message).toBe(INVITE_MSG.addressHeldByCourier);
    // The address already had a mail a moment ago: the sign-up does not mail it again within 10 minutes.
    expect(mailsFor(email)).toHaveLength(1);
    const token = linkIn(mailsFor(email)[0]!.text ?? '')!;
    expect((await call(env.app, 'GET', `/v1/invitations/${token}`)).body.payload).toMatchObject({
      company: 'Squat Co',
      existingAccount: true,
      state: 'pending',
    });
    const dec = await call(env.app, 'POST', '/v1/invitations/decline', { body: { token } });
    expect(dec.statusCode).toBe(200);
    expect(dec.body.message).toBe(INVITE_MSG.declinedNow);
    expect((await call(env.app, 'POST', '/v1/user/general/login', { body: { email, password: 'AttackerKnows1!' } })).statusCode).toBe(401);
    const members = await call(env.app, 'POST', '/v1/user/general/getmembers', { token: c.session });
    expect(members.body.payload).toEqual([]);
    const info = await call(env.app, 'GET', '/v1/user/info', { token: c.session });
    expect(info.body.payload.alerts.general.map((a: { name: string }) => a.name)).toContain('courierReleased');
    const now = await signUp(env.app, { email });
    expect(now.profile.role).not.toBe('courier');
  });

  it("password recovery sends the claim link, not a reset into the company's account; accepting takes it over", async () => {
    const c = await company(env.app, { company: 'Squat Co' });
    const email = fresh('victim');
    await addmember(c.session, email);
    const owners = await call(env.app, 'POST', '/v1/user/general/login', { body: { email, password: 'AttackerKnows1!' } });
    await mailFor(email, /added you as a courier/);
    // Older than the 10-minute re-send guard.
    await env.ctx.db
      .update(courierInvitations)
      .set({ sentAt: new Date(Date.now() - 11 * 60_000) })
      .where(eq(courierInvitations.email, email));
    const rec = await call(env.app, 'GET', `/v1/user/password/recover/${encodeURIComponent(email)}`);
    expect(rec.body.message).toBe(MSG.recoverSent);
    await smtp.waitFor(() => mailsFor(email).length === 2);
    expect(mailsFor(email).some((m) => /Reset your/.test(m.subject ?? ''))).toBe(false);
    const first = linkIn(mailsFor(email)[0]!.text ?? '')!;
    const token = linkIn(mailsFor(email)[1]!.text ?? '')!;
    expect((await call(env.app, 'GET', `/v1/invitations/${first}`)).statusCode).toBe(404);
    const ok = await accept(token, 'mineAlone99');
    expect(ok.statusCode).toBe(200);
    expect(ok.body.payload.profile).toMatchObject({ email, role: 'courier', emailVerified: true });
    // The password the owner chose, and the session it opened, no longer work.
    expect((await call(env.app, 'POST', '/v1/user/general/login', { body: { email, password: 'AttackerKnows1!' } })).statusCode).toBe(401);
    expect((await call(env.app, 'GET', '/v1/user/info', { token: owners.body.payload.sessionToken })).statusCode).toBe(401);
    // Verified now: an ordinary account, and a sign-up meets the ordinary answer.
    const up = await call(env.app, 'POST', '/v1/user/general/signup', {
      body: { email, password: 'password123', repassword: 'password123', terms: true },
    });
    expect(up.body.message).toBe(MSG.emailTaken);
  });

  it('updatemember moving a courier to another address makes it unverified again', async () => {
    const c = await company(env.app);
    const k = await courier(env.app, c.session);
    const to = fresh('moved');
    const r = await call(env.app, 'POST', '/v1/user/general/updatemember', {
      token: c.session,
      body: { uid: k.uid, email: to, role: 'courier', firstName: 'M', lastName: 'V', phone: '3105550100' },
    });
    expect(r.statusCode).toBe(200);
    expect((await userByEmail(to))!.emailVerified).toBe(false);
    await mailFor(to, /added you as a courier/);
  });
});
