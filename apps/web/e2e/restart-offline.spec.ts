import { expect as baseExpect, test } from '@playwright/test';
import { rmSync } from 'node:fs';
import { countCheckpoints, courierWithoutSignal, expectKeptForOffline, openPhone, phoneShots, recordCheckpointByTap } from './helpers';
import { freePort, OwnServer } from './own-server';

// The server is killed (kill -9, a real process) while the courier's phone sends what it kept without signal
// (issue 31: "a server restart never books anything twice"), on the phone profiles, by tap. The E2E run's own
// server cannot be killed (Playwright owns it), so this file starts its own, `node src/main.ts` on its own port and
// data directory, serving the built web app, and the phone opens the app there. The courier finishes five actions
// offline (one Delivered with a signature and a photo); back online, the server dies twice while the queue drains:
// once after it booked an action whose reply never reached the phone, once with a request on its way. It comes back
// on the same data directory; within a bound the phone's queue is empty, and the server has each action once, with
// the time the courier acted, the proof once, and nothing is shown as refused.
test.describe.configure({ mode: 'serial' });
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(300_000);

const shot = phoneShots('restart-offline');
/** How often the phone tries again while actions wait (RETRY_MS of outbox.ts). */
const RETRY_MS = 10_000;

// A port of its own, chosen when the file loads, so every page of this file can use it as its base URL.
const server = new OwnServer(freePort(), 'restart');
const base = server.base;
test.use({ baseURL: base });

// The server starts before the company signs up on it (hooks run in the order they are declared).
test.beforeAll(async () => {
  await server.start();
});
const day = courierWithoutSignal('restart', { firstNumber: 40, street: 'Elm St', baseURL: base });
const record = recordCheckpointByTap;

test.afterAll(async () => {
  await server.kill9();
  if (server.dataDir) rmSync(server.dataDir, { recursive: true, force: true });
});

test('the server is killed twice while the phone sends its queue: back up, each action is booked once, at the time it was made', async ({
  page,
  context,
}) => {
  const tids = await day.handOut(['Alex Elm', 'Jo Elm', 'Sam Elm']);
  await openPhone(page, day.courierEmail, day.courierPassword);
  const stops = page.getByRole('list', { name: "Today's stops" }).getByRole('listitem');
  await expect(stops).toHaveCount(3);
  await expectKeptForOffline(page, ['checkpoint-modal']);
  // From here the phone's clock is the test's (Playwright's clock runs on its own; installed, then the app reloaded
  // under it): after each restart the test moves it on by the phone's retry interval instead of waiting it out. The
  // actions' times are taken before it is moved. (Installed earlier, it hides the page's resource timings that
  // expectKeptForOffline reads.)
  await page.clock.install();
  await page.reload();
  await expect(stops).toHaveCount(3);

  // Five actions without signal, one of them a delivery with a signature and a photo.
  await context.setOffline(true);
  await expect(page.getByTestId('offline-banner')).toBeVisible();
  const made = [
    { tid: tids[0]!, status: 'OutForDelivery', at: await record(page, tids[0]!, { status: 'Out For Delivery', location: 'Austin depot' }) },
    { tid: tids[1]!, status: 'OutForDelivery', at: await record(page, tids[1]!, { status: 'Out For Delivery', location: 'Austin depot' }) },
    {
      tid: tids[0]!,
      status: 'Delivered',
      at: await record(page, tids[0]!, { status: 'Delivered', location: '40 Elm St, Austin', recipient: 'Alex Elm' }),
    },
    {
      tid: tids[1]!,
      status: 'FailAttempt',
      at: await record(page, tids[1]!, { status: 'Fail Attempt', location: '41 Elm St, Austin', message: 'Nobody home' }),
    },
    { tid: tids[2]!, status: 'InTransit', at: await record(page, tids[2]!, { status: 'In Transit', location: 'Round Rock hub' }) },
  ];
  await expect(page.getByTestId('outbox-waiting')).toContainText('Waiting to send: 5');
  await page.waitForTimeout(1000);

  const before = await Promise.all(tids.map(async (t) => (await day.stored(t)).checkpoints.length));

  // The phone's requests go through this hook only to time the kills; each is sent to the real server. The second
  // action reaches the server, which books it and dies before the reply is on its way: the phone never learns it
  // went. After the restart, the second request that reaches the server is on its way when it dies again.
  let seen = 0;
  let up = true;
  let sinceRestart = 0;
  let killed: Promise<void> = Promise.resolve();
  await page.route('**/v1/shipment/update', async (route) => {
    if (!up) return route.continue();
    seen++;
    if (seen === 2) {
      const reply = await route.fetch();
      expect(reply.status()).toBe(200);
      up = false;
      killed = server.kill9();
      await killed;
      await route.abort('connectionreset');
      return;
    }
    if (seen > 2 && ++sinceRestart === 2) {
      await route.continue();
      up = false;
      killed = server.kill9();
      return;
    }
    await route.continue();
  });

  const wentOnline = Date.now();
  await context.setOffline(false);
  // Back online the phone sends at once or at its next retry, whichever comes first: the test brings the retry now.
  await page.clock.fastForward(RETRY_MS);
  // The first kill: one action on the server, its reply lost; the rest wait on the phone.
  await expect.poll(() => seen).toBeGreaterThanOrEqual(2);
  await killed;
  await expect(page.getByTestId('outbox-waiting')).toContainText('Waiting to send: 4');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, 'server-down');
  await server.start();
  up = true;
  // The phone tries again by itself (no `online` event: its network never went) at its next retry; the second kill follows.
  await page.clock.fastForward(RETRY_MS);
  await expect.poll(() => sinceRestart, { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
  await killed;
  await server.start();
  up = true;
  await page.clock.fastForward(RETRY_MS);

  // Within a bound after the server is back, nothing waits on the phone and nothing was refused.
  const back = Date.now();
  await expect(page.getByTestId('outbox-waiting')).toHaveCount(0, { timeout: 30_000 });
  const drainedIn = Date.now() - back;
  await expect(page.getByTestId('outbox-refused')).toHaveCount(0);
  test.info().annotations.push({ type: 'drained', description: `${drainedIn} ms after the second restart` });
  await page.unroute('**/v1/shipment/update');

  // The server has each action exactly once, at the time the courier made it.
  const after = await Promise.all(tids.map((t) => day.stored(t)));
  const of = (tid: string) => after.find((s) => s.tid === tid)!;
  for (const m of made) {
    const s = of(m.tid);
    expect(countCheckpoints(s, m.status), `${m.status} on ${m.tid}`).toBe(1);
    const t = new Date(s.checkpoints.find((c) => c.status === m.status)!.time).getTime();
    expect(t).toBeGreaterThanOrEqual(m.at.from - 1000);
    expect(t).toBeLessThanOrEqual(m.at.to + 1000);
    expect(t).toBeLessThan(wentOnline);
  }
  // Nothing else was booked: each shipment has what it had before and the courier's actions, no more.
  expect(after.map((s) => s.checkpoints.length)).toEqual([before[0]! + 2, before[1]! + 2, before[2]! + 1]);
  expect(of(tids[0]!).status).toBe('Delivered');
  expect(of(tids[1]!).status).toBe('FailAttempt');
  expect(of(tids[2]!).status).toBe('InTransit');
  // The proof once, with its signature and photo, readable through the API.
  const withProof = after.flatMap((s) => s.checkpoints.filter((c) => c.proof).map((c) => ({ tid: s.tid, c })));
  expect(withProof).toHaveLength(1);
  expect(withProof[0]!.c.proof).toEqual(expect.objectContaining({ hasSignature: true, hasPhoto: true }));
  const proof = await day.owner.request.get(`/v1/shipment/proof/${tids[0]}/${withProof[0]!.c.id}`, {
    headers: { 'sm-api-token': day.ownerToken },
  });
  expect(proof.status()).toBe(200);
  const body = (await proof.json()) as { payload: { recipientName: string; signature: string; photo: string } };
  expect(body.payload.recipientName).toBe('Alex Elm');
  expect(body.payload.signature).toMatch(/^data:image\//);
  expect(body.payload.photo).toMatch(/^data:image\//);

  // The phone's day follows the server: the delivered stop is gone, the others stay.
  await expect(stops).toHaveCount(2);
  await expect(page.getByTestId('day-done')).toHaveText('1');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, 'drained');
});
