// Decision 105: statuses a parcel passed between two carrier reads are folded into one notification. Through the
// real refresh path (the scheduler's claim, runDueRefreshes, the batch apply and the notification fan-out to a
// real SMTP server): the carrier answers InfoReceived at one read and Delivered, with the In Transit and Out For
// Delivery scans in between, at the next. One event InfoReceived -> Delivered, one mail, every checkpoint kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import { startJobWorkers } from '../../src/jobs/registry.ts';
import { checkpoints, trackingEvents, trackings } from '../../src/db/schema.ts';
import type { NormalizedCheckpoint, TrackResult } from '../../src/modules/carriers/types.ts';
import { notifyJobs } from '../../src/modules/notifications/notifications.jobs.ts';
import { runDueRefreshes } from '../../src/modules/trackings/refresh.ts';
import { call, createTestEnv, signUp, startSmtp, type SmtpCapture, type TestEnv } from '../helpers.ts';
import { notificationsIdle, QUIET_MS, quietWindow, waitFor } from '../wait.ts';
import { allTriggers, mailTo, saveSettings } from './fixtures.ts';

const TID = '1Z5R89390350075608';
const scan = (status: NormalizedCheckpoint['status'], hour: number, message: string): NormalizedCheckpoint => ({
  status,
  location: 'Louisville, KY',
  message,
  time: `2026-11-20T${String(hour).padStart(2, '0')}:00:00.000Z`,
});
// The carrier's whole picture at each read, newest first.
const FIRST_READ = [scan('InfoReceived', 8, 'Label created')];
const SECOND_READ = [
  scan('Delivered', 17, 'Delivered, front door'),
  scan('OutForDelivery', 13, 'Out for delivery'),
  scan('InTransit', 10, 'Departed facility'),
  ...FIRST_READ,
];

let smtp: SmtpCapture;
let env: TestEnv;
let answer: NormalizedCheckpoint[] = FIRST_READ;

beforeAll(async () => {
  smtp = await startSmtp();
  env = await createTestEnv({ SMTP_URL: smtp.url });
  // The carrier, scripted: whatever `answer` holds when the engine asks.
  env.ctx.resources.carriers!.client = {
    ...env.ctx.resources.carriers!.client,
    async track(courier, tids): Promise<TrackResult[]> {
      return tids.map((tid) => ({
        ok: true,
        tid,
        courier,
        status: answer[0]!.status,
        checkpoints: answer,
        expected: null,
        origin: 'Louisville, KY',
        destination: 'Austin, TX',
      }));
    },
  };
  await startJobWorkers(env.ctx, Object.values(notifyJobs));
});
afterAll(async () => {
  await env?.close();
  await smtp?.close();
});

/** One read of every due tracking, as the scheduler's round does; the tracking is made due first. */
async function read(id: string) {
  await env.ctx.db
    .update(trackings)
    .set({ nextCheckAt: new Date(0) })
    .where(eq(trackings.id, id));
  return runDueRefreshes(env.ctx);
}

describe('statuses passed between two reads (decision 105)', () => {
  it('one read at InfoReceived, the next at Delivered: one event InfoReceived -> Delivered, one mail, every scan kept', async () => {
    const a = await signUp(env.app);
    // Every status is a trigger: a subscriber to In Transit and Out For Delivery still gets only the latest.
    await saveSettings(env, a.session, { receiveNotification: { email: { triggers: allTriggers } } });
    const add = await call(env.app, 'POST', '/v1/trackings/add', { token: a.session, body: { tid: TID, courier: 'ups', title: 'Lamp' } });
    expect(add.statusCode, JSON.stringify(add.body)).toBeLessThan(300);
    const [t] = await env.ctx.db.select().from(trackings).where(eq(trackings.tid, TID));

    expect((await read(t!.id)).fetched).toBe(1);
    await waitFor(() => smtp.mails.some((m) => mailTo(m).includes(a.email) && /Info Received|InfoReceived/i.test(m.subject ?? '')), {
      message: 'no InfoReceived mail',
    });

    answer = SECOND_READ;
    expect((await read(t!.id)).changed).toBe(1);
    const events = await env.ctx.db
      .select()
      .from(trackingEvents)
      .where(eq(trackingEvents.trackingId, t!.id))
      .orderBy(asc(trackingEvents.createdAt));
    expect(events.map((e) => [e.fromStatus, e.toStatus])).toEqual([
      ['Pending', 'InfoReceived'],
      ['InfoReceived', 'Delivered'],
    ]);
    // The intermediate scans are in the history.
    const kept = await env.ctx.db.select({ status: checkpoints.status }).from(checkpoints).where(eq(checkpoints.trackingId, t!.id));
    expect(kept.map((c) => c.status).sort()).toEqual(['Delivered', 'InTransit', 'InfoReceived', 'OutForDelivery']);

    // One Delivered mail; no In Transit and no Out For Delivery mail, now or later.
    await waitFor(() => smtp.mails.some((m) => mailTo(m).includes(a.email) && /Delivered/.test(m.subject ?? '')), {
      message: 'no Delivered mail',
    });
    await notificationsIdle(env.ctx);
    const subjects = () =>
      smtp.mails
        .filter((m) => mailTo(m).includes(a.email))
        .map((m) => m.subject ?? '')
        .filter((s) => !/verify|welcome|confirm/i.test(s));
    const seen = await quietWindow(QUIET_MS, subjects);
    expect(seen.filter((s) => /Delivered/.test(s))).toHaveLength(1);
    expect(seen.filter((s) => /In Transit|InTransit|Out For Delivery|OutForDelivery/i.test(s))).toEqual([]);
  });
});
