import type { AppContext } from '../../context.ts';
import { badRequest } from '../../lib/errors.ts';
import * as mail from './mails.ts';
import * as repo from './accounts.repository.ts';
import type { UserRow } from './accounts.repository.ts';
import { newVersion } from './tokens.ts';

// Messages people send to the staff (contact form, support) and invitations to friends: each is stored and
// mailed, apart from the account logic in accounts.service.ts.

export async function getInTouch(ctx: AppContext, m: { name: string; email: string; phone?: string; message: string }) {
  await repo.insertMessage(ctx.db, { kind: 'contact', name: m.name, email: m.email, phone: m.phone ?? null, message: m.message });
  const body = `${m.message}\n\n— ${m.name} <${m.email}>${m.phone ? `, ${m.phone}` : ''}`;
  await ctx.mailer.send({ to: ctx.config.SUPPORT_EMAIL, ...mail.staffMessage('contact', m.email, body) });
}

export async function supportRequest(ctx: AppContext, user: UserRow, message: string) {
  await repo.insertMessage(ctx.db, { kind: 'support', userId: user.id, email: user.email, message });
  await ctx.mailer.send({ to: ctx.config.SUPPORT_EMAIL, ...mail.staffMessage('support', `${user.email} (uid ${user.uid})`, message) });
  await repo.updateUser(ctx.db, user.id, { version: newVersion() });
}

export async function inviteFriend(ctx: AppContext, user: UserRow, email: string) {
  if (email === user.email) throw badRequest('You cannot invite yourself', { email: 'You cannot invite yourself' });
  // The same answer whether or not the person has an account (no enumeration); someone who already has
  // one gets no mail and no referral row.
  if (await repo.findUserByEmail(ctx.db, email)) return;
  await repo.addInvitation(ctx.db, user.id, email);
  const name = [user.firstName, user.lastName].filter(Boolean).join(' ') || user.email;
  await ctx.mailer.send({ to: email, ...mail.invite(name, `${ctx.config.publicUrl}/referrer/${user.referralCode}`) });
  await repo.updateUser(ctx.db, user.id, { version: newVersion() });
}
