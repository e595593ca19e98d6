// How long a mail or SMS delivery attempt holds its notification when no test tunes the lease (issue 27,
// delivery-1): the provider call's longest time plus the 30 s margin, per channel. The mailer's longest send
// (its SMTP waits summed, 50 s) gives 80 s; the SMS provider's timeout (15 s) gives 45 s. The webhook timeout is
// tuned far apart (200 s, a 230 s lease), so a channel that fell to the webhook's length would show it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { notifications } from '../../src/db/schema.ts';
import { rowsOf } from '../../src/db/client.ts';
import { deliverEmail, deliverSms } from '../../src/modules/notifications/delivery.ts';
import type { TestEnv } from '../helpers.ts';
import { accountWithNotification, everyChangeBy, fastTuning, startNotificationEnv, type NotificationEnv } from './fixtures.ts';

describe("a delivery attempt's lease, untuned", () => {
  let ne: NotificationEnv;
  let env: TestEnv;
  /** The seconds left on each notification's lease when its provider call starts (the beforeSend hook). */
  const leftAtSend = new Map<string, number>();
  beforeAll(async () => {
    ne = await startNotificationEnv();
    env = ne.env;
    // No leaseSeconds: the lease is the channel's own. The webhook timeout far from either channel's.
    fastTuning(env.ctx, { webhookTimeoutMs: 200_000 });
    env.ctx.resources.notificationFaults = {
      async beforeSend(id) {
        const r = await env.ctx.db.execute(
          sql`select extract(epoch from (${notifications.leaseUntil} - now()))::float8 as left from ${notifications} where ${notifications.id} = ${id}`,
        );
        leftAtSend.set(id, Number(rowsOf<{ left: number | string }>(r)[0]!.left));
      },
    };
  });
  beforeEach(() => {
    ne.twilio.setRespond((r) => ({ status: 201, json: { sid: `SM${randomUUID().replace(/-/g, '')}`, to: r.to, status: 'queued' } }));
  });
  afterAll(() => ne.close());

  /** An account with one queued notification on `channel` (its job not run: the test runs the handler by hand). */
  const queued = async (channel: 'email' | 'sms', tid: string) => (await accountWithNotification(env, everyChangeBy(channel), tid)).n;
  const row = async (id: string) => (await env.ctx.db.select().from(notifications).where(eq(notifications.id, id)))[0]!;

  it("mail holds its notification for the mailer's longest send plus the margin (80 s), not the webhook's", async () => {
    expect(env.ctx.mailer.sendTimeoutMs).toBe(50_000);
    const n = await queued('email', '1ZLEASE0001');
    await deliverEmail(env.ctx, n.id);
    expect(await row(n.id)).toMatchObject({ status: 'sent', leaseUntil: null });
    const left = leftAtSend.get(n.id)!;
    // Taken moments before the send: at most the 80 s, and more than the SMS's 45 s.
    expect(left).toBeLessThanOrEqual(80);
    expect(left).toBeGreaterThan(45);
  });

  it("SMS holds its notification for the provider's timeout plus the margin (45 s), not the webhook's", async () => {
    const n = await queued('sms', '1ZLEASE0002');
    await deliverSms(env.ctx, n.id);
    expect(await row(n.id)).toMatchObject({ status: 'sent', leaseUntil: null });
    const left = leftAtSend.get(n.id)!;
    expect(left).toBeLessThanOrEqual(45);
    expect(left).toBeGreaterThan(0);
  });
});
