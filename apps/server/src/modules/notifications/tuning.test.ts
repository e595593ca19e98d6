// An e-mail's or SMS's retry after its provider failed starts from the deployment's NOTIFY_RETRY_SECONDS (30 s by
// default), and every job of the two queues carries it; a test's own tuning still wins.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import { emailQueue, smsQueue, webhookQueue } from './queues.ts';
import { tuning } from './tuning.ts';

const ctxWith = (env: Record<string, string>, notificationTuning?: object) =>
  ({ config: loadConfig({ DATA_DIR: 'memory://', ...env }), resources: { notificationTuning } }) as unknown as AppContext;

describe('the first provider retry', () => {
  it('is 30 s by default, doubled per failure up to an hour', () => {
    const ctx = ctxWith({});
    expect(tuning(ctx).providerRetryDelaySeconds).toBe(30);
    expect(emailQueue.options(ctx)).toMatchObject({ retryDelay: 30, retryBackoff: true, retryDelayMax: 3600 });
  });

  it("is the deployment's NOTIFY_RETRY_SECONDS for e-mail, SMS and a webhook's unexpected error", () => {
    const ctx = ctxWith({ NOTIFY_RETRY_SECONDS: '5' });
    for (const q of [emailQueue, smsQueue, webhookQueue]) expect(q.options(ctx).retryDelay).toBe(5);
  });

  it("gives way to a test's own tuning", () => {
    expect(tuning(ctxWith({ NOTIFY_RETRY_SECONDS: '5' }, { providerRetryDelaySeconds: 1 })).providerRetryDelaySeconds).toBe(1);
  });

  it('refuses a value that is not a whole number of seconds between 1 and an hour', () => {
    for (const bad of ['0', '-1', '2.5', '3601', 'soon'])
      expect(() => loadConfig({ DATA_DIR: 'memory://', NOTIFY_RETRY_SECONDS: bad })).toThrow(/NOTIFY_RETRY_SECONDS/);
  });
});
