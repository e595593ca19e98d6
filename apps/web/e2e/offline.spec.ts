import { expect as baseExpect, test } from '@playwright/test';
import {
  apiPost,
  countCheckpoints,
  courierWithoutSignal,
  expectKeptForOffline,
  openPhone,
  phoneShots,
  recordCheckpointByTap,
  type StoredShipment,
} from './helpers';

// The courier's phone without signal (issue 31, decision 120), on the Pixel 7 and iPhone 13 profiles, by tap: the
// courier opens today's stops while online, loses the signal, records Out For Delivery, a failed attempt and a
// delivery with a signature and a photo, closes and reopens the app offline (it opens on today's stops from the
// phone's copy, with what waits to be sent), then gets the signal back: each action reaches the server exactly
// once, with the time it was made, and the owner's list shows it. A reply lost in the middle of a photo upload is
// sent again and still booked once.
test.describe.configure({ mode: 'serial' });
const expect = baseExpect.configure({ timeout: 30_000 });
test.setTimeout(240_000);

const shot = phoneShots('offline');

const day = courierWithoutSignal('offline', { firstNumber: 20, street: 'Oak St' });
const record = recordCheckpointByTap;

test('without signal: three actions kept on the phone, the app reopened offline, each on the server once with its own time', async ({
  page,
  context,
}) => {
  const tids = await day.handOut(['Alex Recipient', 'Jo Customer']);
  await openPhone(page, day.courierEmail, day.courierPassword);
  const stops = page.getByRole('list', { name: "Today's stops" }).getByRole('listitem');
  await expect(stops).toHaveCount(2);
  // The checkpoint form's code arrives while there is signal.
  await expectKeptForOffline(page, ['checkpoint-modal']);
  // The phone's timers are the test's from the next load on (Playwright's clock, running on its own until paused).
  await page.clock.install();

  await context.setOffline(true);
  await expect(page.getByTestId('offline-banner')).toBeVisible();
  const out = await record(page, tids[0]!, { status: 'Out For Delivery', location: 'Austin depot' });
  await expect(page.getByTestId('outbox-waiting')).toContainText('Waiting to send: 1');
  const fail = await record(page, tids[1]!, { status: 'Fail Attempt', location: '21 Oak St, Austin', message: 'Nobody home' });
  const delivered = await record(page, tids[0]!, { status: 'Delivered', location: '20 Oak St, Austin', recipient: 'Alex Recipient' });
  await expect(page.getByTestId('outbox-waiting')).toContainText('Waiting to send: 3');
  // The stop delivered on the phone leaves the stops to do and goes last (decision 138).
  await expect(stops.first()).toHaveAttribute('data-pending', 'FailAttempt');
  await expect(stops.nth(1)).toHaveAttribute('data-pending', 'Delivered');
  // The day's counts as the courier lived it, before the server knows.
  await expect(page.getByTestId('day-left')).toHaveText('1');
  await expect(page.getByTestId('day-done')).toHaveText('1');
  await expect(page.getByTestId('day-failed')).toHaveText('1');
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect(page.getByTestId('offline-banner')).toBeVisible();
  await shot(page, 'offline-queue');
  // Nothing reached the server yet.
  expect((await day.stored(tids[0]!)).status).toBe('InfoReceived');

  // The courier closes and reopens the app without signal: today's stops and the queue are there.
  await page.reload();
  await expect(page.getByTestId('offline-banner')).toBeVisible();
  await expect(page.getByTestId('offline-banner')).toContainText('Your stops as of');
  await expect(stops).toHaveCount(2);
  await expect(stops.nth(1)).toContainText('Alex Recipient');
  await expect(stops.nth(1)).toContainText('20 Oak St');
  await expect(page.getByTestId('outbox-waiting')).toContainText('Waiting to send: 3');
  await expect(page.getByTestId('day-done')).toHaveText('1');
  await shot(page, 'offline-reopened');
  await page.waitForTimeout(1500);
  // The app was reopened without signal, so the browser fires no `online` event when the signal returns. The phone's
  // timers are stopped and moved on by the test, 100 ms at a time, up to 4 s: the first reply the app gets (its live
  // stream, its lists) sends the queue. Its retry every 10 s, counted from the reopening a few seconds ago, is not
  // due by then.
  await page.clock.pauseAt(Date.now() + 100);
  const wentOnline = Date.now();
  await context.setOffline(false);
  const sentWithin = async () => {
    for (let ms = 0; ms < 4_000; ms += 100) {
      if ((await day.stored(tids[0]!)).status === 'Delivered') return ms;
      await page.clock.runFor(100);
    }
    return null;
  };
  expect(await sentWithin(), 'sent before the phone would have retried').not.toBeNull();
  await page.clock.resume();
  await expect(page.getByTestId('outbox-waiting')).toHaveCount(0);
  await expect(page.getByTestId('offline-banner')).toHaveCount(0);

  // Each action once, at the time it was made (before the phone was online again), in the owner's data.
  const a = await day.stored(tids[0]!);
  const b = await day.stored(tids[1]!);
  expect([countCheckpoints(a, 'OutForDelivery'), countCheckpoints(a, 'Delivered'), countCheckpoints(b, 'FailAttempt')]).toEqual([1, 1, 1]);
  expect(a.status).toBe('Delivered');
  expect(b.status).toBe('FailAttempt');
  const timeOf = (s: StoredShipment, status: string) => new Date(s.checkpoints.find((c) => c.status === status)!.time).getTime();
  for (const [t, w] of [
    [timeOf(a, 'OutForDelivery'), out],
    [timeOf(b, 'FailAttempt'), fail],
    [timeOf(a, 'Delivered'), delivered],
  ] as const) {
    expect(t).toBeGreaterThanOrEqual(w.from - 1000);
    expect(t).toBeLessThanOrEqual(w.to + 1000);
    expect(t).toBeLessThan(wentOnline);
  }
  expect(a.checkpoints.find((c) => c.status === 'Delivered')!.proof).toEqual(
    expect.objectContaining({ hasSignature: true, hasPhoto: true }),
  );
  expect(b.checkpoints.find((c) => c.status === 'FailAttempt')!.message).toBe('Nobody home');

  // The phone's day follows: the delivered stop is gone, the failed one stays.
  await expect(stops).toHaveCount(1);
  await expect(page.getByTestId('day-done')).toHaveText('1');
  // The owner's list shows both.
  await day.owner.goto('/account/shipments');
  await expect(day.owner.locator(`[data-testid="shipments-table"] tr[data-tid="${tids[0]}"]`)).toHaveAttribute('data-status', 'Delivered');
  await expect(day.owner.locator(`[data-testid="shipments-table"] tr[data-tid="${tids[1]}"]`)).toHaveAttribute(
    'data-status',
    'FailAttempt',
  );
});

test('the connection drops in the middle of a photo upload: sent again later, booked once', async ({ page }) => {
  const [tid] = await day.handOut(['Sam Neighbour']);
  await openPhone(page, day.courierEmail, day.courierPassword);
  await expect(page.getByRole('listitem').filter({ hasText: 'Sam Neighbour' })).toBeVisible();
  await expectKeptForOffline(page, ['checkpoint-modal']);
  // The upload reaches the server, and the reply is lost on the way back.
  let reached = 0;
  await page.route('**/v1/shipment/update', async (route) => {
    reached++;
    await route.fetch();
    await route.abort('connectionreset');
  });
  await record(page, tid!, { status: 'Delivered', location: '20 Oak St, Austin', recipient: 'Sam Neighbour' });
  expect(reached).toBe(1);
  await expect(page.getByTestId('outbox-waiting')).toContainText('Waiting to send: 1');
  expect(countCheckpoints(await day.stored(tid!), 'Delivered')).toBe(1);
  await shot(page, 'upload-dropped');
  // The signal is back: the phone sends it again under the same key, and the server answers the first reply.
  await page.unroute('**/v1/shipment/update');
  await page.evaluate(() => window.dispatchEvent(new Event('online')));
  await expect(page.getByTestId('outbox-waiting')).toHaveCount(0);
  await expect(page.getByTestId('outbox-refused')).toHaveCount(0);
  const s = await day.stored(tid!);
  expect(countCheckpoints(s, 'Delivered')).toBe(1);
  expect(s.status).toBe('Delivered');
});

test('a stop given to another courier while the phone was offline: not sent, said in words, and the owner is told', async ({
  page,
  context,
}) => {
  const [tid] = await day.handOut(['Kim Moved']);
  await openPhone(page, day.courierEmail, day.courierPassword);
  await expect(page.getByRole('listitem').filter({ hasText: 'Kim Moved' })).toBeVisible();
  await expectKeptForOffline(page, ['checkpoint-modal']);
  await context.setOffline(true);
  await expect(page.getByTestId('offline-banner')).toBeVisible();
  await record(page, tid!, { status: 'Out For Delivery', location: 'Austin depot' });
  // Meanwhile the office takes the stop back.
  expect((await apiPost(day.owner.request, day.ownerToken, '/v1/shipment/unassign', { tids: [tid] })).status).toBe('success');
  await context.setOffline(false);
  const refused = page.getByTestId('outbox-refused');
  await expect(refused).toContainText('Not sent: 1');
  await expect(refused).toContainText('This shipment is no longer assigned to you');
  await expect(page.getByTestId('outbox-waiting')).toHaveCount(0);
  await shot(page, 'not-sent');
  expect(countCheckpoints(await day.stored(tid!), 'OutForDelivery')).toBe(0);
  const info = await (await day.owner.request.get('/v1/user/info', { headers: { 'sm-api-token': day.ownerToken } })).json();
  expect(
    (info.payload.alerts.general as Array<{ name: string; message: string }>).some(
      (x) => x.name === 'courierUpdateNotSaved' && x.message.includes(tid!),
    ),
  ).toBe(true);
  await refused.getByRole('button', { name: /Dismiss/ }).tap();
  await expect(refused).toHaveCount(0);
});

test('a position taken without signal is kept on the phone and reaches the couriers map when the signal returns', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['geolocation']);
  await context.setGeolocation({ latitude: 30.2672, longitude: -97.7431 });
  await openPhone(page, day.courierEmail, day.courierPassword);
  const share = page.getByRole('switch', { name: 'Share my location' });
  await expect(share).not.toBeChecked();
  await context.setOffline(true);
  await expect(page.getByTestId('offline-banner')).toBeVisible();
  await share.tap();
  await expect(share).toBeChecked();
  // No signal: the fix is kept on the phone, and the courier is told.
  await expect(page.getByTestId('share-location-kept')).toContainText('kept on the phone and goes when the signal returns');
  await shot(page, 'position-kept');
  const geo = async () => {
    const list = await apiPost(day.owner.request, day.ownerToken, '/v1/user/general/getmembers', {});
    return (list.payload as Array<{ email: string; geo: unknown }>).find((m) => m.email === day.courierEmail)?.geo ?? null;
  };
  expect(await geo()).toBeNull();
  await context.setOffline(false);
  // Back online: the kept fix goes by itself and the couriers map has it.
  await expect.poll(geo).toEqual({ lat: 30.2672, lng: -97.7431 });
  await expect(page.getByTestId('share-location-kept')).toHaveCount(0);
  await expect(page.getByTestId('share-location-sent')).toBeVisible();
});
