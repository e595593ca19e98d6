// Delivery jobs of a status-change batch go in one statement per channel (decision 164): each job as `enqueue` would
// have sent it (the queue's retry, expiry and heartbeat policy, the payload checked), and only if the transaction
// that wrote the notifications commits.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client.ts';
import { enqueue, enqueueMany } from '../../src/jobs/define.ts';
import { emailQueue, webhookQueue } from '../../src/modules/notifications/queues.ts';
import { createTestEnv, type TestEnv } from '../helpers.ts';

type JobRow = {
  id: string;
  name: string;
  data: { v: number; notificationId: string; attempt: number };
  retry_limit: number;
  retry_delay: number;
  retry_backoff: boolean;
  retry_delay_max: number | null;
  expire_seconds: number;
  heartbeat_seconds: number | null;
  priority: number;
  state: string;
};

describe('enqueueing many delivery jobs at once', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  const jobsOf = async (ids: string[]) =>
    rowsOf<JobRow>(
      await env.ctx.db.execute(
        sql`select id, name, data, retry_limit, retry_delay, retry_backoff, retry_delay_max, expire_seconds, heartbeat_seconds, priority, state
            from pgboss.job where data->>'notificationId' in (${sql.join(
              ids.map((i) => sql`${i}`),
              sql`, `,
            )}) order by data->>'notificationId'`,
      ),
    );
  /** Everything a job row says but its id and payload: the queue and the policy it runs under. */
  const policy = ({ id: _id, data: _data, ...rest }: JobRow) => rest;

  it("writes one job per payload under the queue's policy, the same as enqueue sends one", async () => {
    for (const queue of [webhookQueue, emailQueue]) {
      const ids = [randomUUID(), randomUUID(), randomUUID()].sort();
      const single = randomUUID();
      await env.ctx.db.transaction(async (tx) => {
        await enqueueMany(
          env.ctx,
          queue,
          ids.map((notificationId) => ({ v: 1, notificationId, attempt: 0 })),
          { tx },
        );
        await enqueue(env.ctx, queue, { v: 1, notificationId: single, attempt: 0 }, { tx });
      });
      const many = await jobsOf(ids);
      expect(many.map((j) => j.data)).toEqual(ids.map((notificationId) => ({ v: 1, notificationId, attempt: 0 })));
      const [sent] = await jobsOf([single]);
      expect(sent).toBeDefined();
      for (const j of many) expect(policy(j)).toEqual(policy(sent!));
      expect(policy(sent!)).toMatchObject({ name: queue.name, retry_backoff: true, state: 'created' });
    }
  });

  it('writes nothing when the transaction rolls back, or when a payload is malformed', async () => {
    const ids = [randomUUID(), randomUUID()];
    await env.ctx.db
      .transaction(async (tx) => {
        await enqueueMany(
          env.ctx,
          webhookQueue,
          ids.map((notificationId) => ({ v: 1, notificationId, attempt: 0 })),
          { tx },
        );
        throw new Error('the batch failed after its notifications');
      })
      .catch(() => {});
    expect(await jobsOf(ids)).toEqual([]);

    const bad = [randomUUID(), 'not a notification id'];
    await expect(
      enqueueMany(
        env.ctx,
        webhookQueue,
        bad.map((notificationId) => ({ v: 1, notificationId, attempt: 0 })),
      ),
    ).rejects.toThrow();
    expect(await jobsOf(bad)).toEqual([]);
  });

  it('does nothing for no payloads', async () => {
    await expect(enqueueMany(env.ctx, webhookQueue, [])).resolves.toBeUndefined();
  });
});
