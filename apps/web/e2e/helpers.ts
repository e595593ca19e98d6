import { mkdirSync } from 'node:fs';
import { expect, test, type APIRequestContext, type Browser, type BrowserContext, type Locator, type Page } from '@playwright/test';
import { journeyFor, type JourneyName } from '../../server/src/modules/carriers/sandbox/journeys.ts';

/**
 * A UPS number no other spec asks the carrier sandbox about (`prefix` names the spec), whose scripted sandbox journey is
 * one of `journeys`: the sandbox's own choice of journey (modules/carriers/sandbox/journeys.ts), not a copy of it.
 * With `slowest`, one the sandbox plays at its slowest (a per-number speed factor of 1.15 to 1.2; 0.8 to 1.2 in all):
 * for a spec that must read a state the journey passes through, such as the promised window before Delivered, which at
 * the E2E pace lasts 11.6 s for the fastest numbers and 17.4 s for the slowest (decision 180).
 */
export function sandboxNumber(prefix: string, journeys: JourneyName[], o: { slowest?: boolean } = {}): string {
  for (;;) {
    const tid = `1Z${prefix}${Date.now().toString(36).toUpperCase()}${Math.floor(Math.random() * 1e6)}`;
    const journey = journeyFor(tid);
    if (journeys.includes(journey.name) && (!o.slowest || journey.factor >= 1.15)) return tid;
  }
}

/**
 * What runs off the right side of the page: [] when the page is no wider than the window, else the innermost
 * elements whose right edge is past it (tag, classes, test id, right edge, first words), so a failure names them.
 */
export function sidewaysOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const vw = window.innerWidth;
    if (document.documentElement.scrollWidth <= vw) return [];
    const out = (e: Element) => e.getBoundingClientRect().right > vw + 1;
    return [...document.body.querySelectorAll('*')]
      .filter((e) => out(e) && ![...e.children].some(out))
      .slice(0, 6)
      .map((e) => {
        const id = e.getAttribute('data-testid');
        const cls = typeof e.className === 'string' ? e.className.split(/\s+/).slice(0, 2).join('.') : '';
        const text = (e.textContent ?? '').trim().slice(0, 40);
        return `${e.tagName.toLowerCase()}${cls ? `.${cls}` : ''}${id ? `[${id}]` : ''} right ${Math.round(e.getBoundingClientRect().right)} of ${vw}: "${text}"`;
      });
  });
}

export const uniqueEmail = (tag: string) => `${tag}.${Date.now()}.${Math.floor(Math.random() * 1e6)}@example.com`;

interface OutboxMail {
  id: number;
  to: string;
  subject: string;
  text: string;
  html?: string | null;
  createdAt: string;
}

/**
 * The dev outbox's newest 500 messages (its most; 100 by default). Specs run in two workers at once against one
 * server, so a spec reading its own mail must not lose it under the mail the spec beside it sends meanwhile.
 */
export const OUTBOX_API = '/dev/mail/api?limit=500';

/** Waits for a mail to `to` in the dev outbox (GET /dev/mail/api) and returns the first link path matching. */
export async function linkFromOutbox(request: APIRequestContext, to: string, pathPrefix: string): Promise<string> {
  let found = '';
  await expect
    .poll(
      async () => {
        const res = await request.get(OUTBOX_API);
        const list = (await res.json()) as OutboxMail[];
        const mail = list.find((m) => m.to === to && m.text.includes(pathPrefix));
        const m = mail?.text.match(new RegExp(`https?://[^\\s]+(${pathPrefix.replace(/\//g, '\\/')}[^\\s]+)`));
        found = m?.[1] ?? '';
        return found;
      },
      { timeout: 20_000 },
    )
    .not.toBe('');
  return found;
}

/** Signs up through the API and stores the session like the app does; returns the session token. */
export async function signUpViaApi(page: Page, request: APIRequestContext, email: string, userType: 'person' | 'company' = 'person') {
  const res = await request.post('/v1/user/general/signup', {
    data: { email, password: 'password1', repassword: 'password1', terms: true, userType, firstName: 'Test', lastName: 'User' },
  });
  const body = (await res.json()) as { payload: { sessionToken: string; version: string } };
  await page.goto('/terms-of-service');
  await page.evaluate((s) => localStorage.setItem('shiptrail.session', JSON.stringify(s)), {
    token: body.payload.sessionToken,
    version: body.payload.version,
  });
  return body.payload.sessionToken;
}

export async function apiPost(request: APIRequestContext, token: string, path: string, data: unknown) {
  const res = await request.post(path, { data, headers: { 'sm-api-token': token } });
  return res.json();
}

/**
 * Zones a few hours apart around the world: at any moment one of them has a morning (no gap reaches five hours).
 * A plan for "today" is made there, so today's shift (08:00-18:00 local) has hours left whenever the test runs.
 */
const MORNING_ZONES = [
  'Pacific/Honolulu',
  'America/Los_Angeles',
  'America/Chicago',
  'America/New_York',
  'Europe/London',
  'Europe/Berlin',
  'Asia/Dubai',
  'Asia/Kolkata',
  'Asia/Bangkok',
  'Asia/Tokyo',
  'Australia/Sydney',
  'Pacific/Auckland',
  'Pacific/Kiritimati',
  'Atlantic/Azores',
  'America/Sao_Paulo',
  'America/Halifax',
];

/** A time zone where it is now between 08:00 and 13:00, and today's date there. */
export function zoneWithMorning(): { zone: string; date: string } {
  for (const zone of MORNING_ZONES) {
    const parts = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
    }).formatToParts(new Date());
    const n = (t: string) => parts.find((p) => p.type === t)!.value;
    if (Number(n('hour')) >= 8 && Number(n('hour')) < 13) return { zone, date: `${n('year')}-${n('month')}-${n('day')}` };
  }
  throw new Error('no time zone in the list has a morning now');
}

/**
 * Adds a courier to the owner's company through the API (POST /v1/user/general/addmember) and returns the reply;
 * the caller checks it. Dana Lee with the password courierpass1 unless told otherwise.
 */
export async function addCourierViaApi(
  request: APIRequestContext,
  ownerToken: string,
  email: string,
  over: { firstName?: string; lastName?: string; phone?: string; password?: string } = {},
) {
  return apiPost(request, ownerToken, '/v1/user/general/addmember', {
    email,
    role: 'courier',
    firstName: 'Dana',
    lastName: 'Lee',
    phone: '(213) 555-0101',
    password: 'courierpass1',
    ...over,
  });
}

/** Signs in through the Log in form by tap, as on a phone, and waits for the dashboard. */
export async function signInByTap(page: Page, email: string, password: string) {
  await page.goto('/#tab-login');
  const form = page.getByRole('form', { name: 'Log in' });
  await form.getByRole('textbox', { name: 'Email' }).tap();
  await form.getByRole('textbox', { name: 'Email' }).fill(email);
  await form.getByRole('textbox', { name: 'Password', exact: true }).tap();
  await form.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
  await form.getByRole('button', { name: 'Log in', exact: true }).tap();
  await expect(page).toHaveURL(/\/account\/dashboard$/, { timeout: 30_000 });
}

/**
 * Signs a courier in on the phone once the service worker controls the page, so every chunk it loads is kept for
 * offline use, and opens the dashboard (their day).
 */
export async function openPhone(page: Page, email: string, password: string) {
  await page.goto('/terms-of-service');
  await page.evaluate(() => navigator.serviceWorker.ready);
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller), { timeout: 30_000 }).toBe(true);
  const login = await page.request.post('/v1/user/general/login', { data: { email, password } });
  const { payload } = (await login.json()) as { payload: { sessionToken: string; version: string } };
  await page.evaluate((s) => localStorage.setItem('shiptrail.session', JSON.stringify(s)), {
    token: payload.sessionToken,
    version: payload.version,
  });
  await page.goto('/account/dashboard');
}

/** Every script the page loaded is in the service worker's cache, and the page loaded each of the chunks named. */
export async function expectKeptForOffline(page: Page, chunks: string[]) {
  await expect
    .poll(
      () =>
        page.evaluate(async (wanted) => {
          const assets = performance
            .getEntriesByType('resource')
            .map((e) => new URL(e.name).pathname)
            .filter((p) => p.startsWith('/assets/'));
          const missing: string[] = [];
          for (const a of assets) if (!(await caches.match(a))) missing.push(a);
          return wanted.every((w) => assets.some((a) => a.includes(w))) && missing.length === 0;
        }, chunks),
      { timeout: 30_000 },
    )
    .toBe(true);
}

/** Draws a stroke on the signature pad with touch events, as a finger would. */
export async function signByTouch(page: Page, pad: Locator) {
  await pad.scrollIntoViewIfNeeded();
  const box = (await pad.boundingBox())!;
  const cdp = await page.context().newCDPSession(page);
  const at = (i: number) => ({
    x: box.x + 20 + i * ((box.width - 40) / 12),
    y: box.y + box.height / 2 - Math.sin(i / 2) * (box.height / 4),
  });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [at(0)] });
  for (let i = 1; i <= 12; i++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [at(i)] });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/** Picks a status in the checkpoint form by tap. */
export async function pickStatusByTap(page: Page, form: Locator, label: string) {
  await form.getByRole('combobox', { name: 'Status' }).tap();
  await page.getByRole('option', { name: label, exact: true }).tap();
  await expect(form.getByRole('combobox', { name: 'Status' })).toHaveValue(label, { timeout: 30_000 });
}

/** The planning specs' depot, in downtown Los Angeles. */
export const PLAN_DEPOT = { lat: 34.0407, long: -118.2468 };

/**
 * An unassigned shipment of `date` from the depot to the `i`-th of `around` points on rings 2, 4 and 6 km out,
 * numbered from `firstNumber` on `street`, with the order id `<orderPrefix>-<i>` and, when asked, a customer email.
 */
export function planShipment(
  date: string,
  i: number,
  o: { around: number; street: string; firstNumber: number; orderPrefix: string; customerEmail?: boolean },
) {
  const angle = (i * 2 * Math.PI) / o.around;
  const km = 2 + (i % 3) * 2;
  return {
    origin: { name: 'Depot', address1: '100 Main St', city: 'Los Angeles', state: 'CA', zip: '90012', country: 'US', ...PLAN_DEPOT },
    destination: {
      name: `Customer ${i}`,
      address1: `${o.firstNumber + i} ${o.street}`,
      city: 'Los Angeles',
      state: 'CA',
      zip: '90013',
      country: 'US',
      lat: PLAN_DEPOT.lat + (km / 111) * Math.sin(angle),
      long: PLAN_DEPOT.long + (km / 92) * Math.cos(angle),
      ...(o.customerEmail ? { email: uniqueEmail(`customer${i}`) } : {}),
    },
    parcels: [{ name: 'Box', quantity: 1, length: 10, width: 8, height: 4, weight: 2 }],
    expected: `${date}T12:00:00Z`,
    unassigned: true,
    orderId: `${o.orderPrefix}-${i}`,
  };
}

/** A 2x2 PNG: the photo of a proof of delivery in the courier E2E. */
export const PHOTO = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

/** A shipment as the owner reads it through the API, with its checkpoints and their proofs. */
export interface StoredShipment {
  tid: string;
  status: string;
  checkpoints: Array<{
    id: number;
    status: string;
    time: string;
    message: string;
    location: string;
    proof: { hasSignature: boolean; hasPhoto: boolean } | null;
  }>;
}
/** The owner's view of a shipment, through the API. */
export async function storedShipment(request: APIRequestContext, token: string, tid: string): Promise<StoredShipment> {
  const list = await apiPost(request, token, '/v1/shipment/getshipments', { numRecords: 100 });
  return (list.payload as StoredShipment[]).find((s) => s.tid === tid)!;
}

/** Records a checkpoint by tap; resolves with the instants just before the tap on Save and after the form closed. */
/** The courier specs' patience: a phone under a loaded machine shrinks a photo and closes a form slowly. */
const patient = expect.configure({ timeout: 30_000 });

export async function recordCheckpointByTap(
  page: Page,
  tid: string,
  o: { status: string; location: string; message?: string; recipient?: string },
): Promise<{ from: number; to: number }> {
  await page.getByRole('button', { name: `Add checkpoint to ${tid}` }).tap();
  return fillCheckpointByTap(page, o);
}

/** Fills the open checkpoint form by tap and saves it; resolves with the instants around the tap on Save. */
export async function fillCheckpointByTap(
  page: Page,
  o: { status: string; location: string; message?: string; recipient?: string },
): Promise<{ from: number; to: number }> {
  const form = page.getByRole('form', { name: 'Add checkpoint' });
  await pickStatusByTap(page, form, o.status);
  await form.getByLabel('Location').tap();
  await form.getByLabel('Location').fill(o.location);
  if (o.message) {
    await form.getByLabel('Message').tap();
    await form.getByLabel('Message').fill(o.message);
  }
  if (o.recipient) {
    await form.getByLabel("Recipient's name").tap();
    await form.getByLabel("Recipient's name").fill(o.recipient);
    await signByTouch(page, form.getByTestId('signature-pad'));
    await form.locator('input[type="file"]').setInputFiles({ name: 'door.png', mimeType: 'image/png', buffer: PHOTO });
    await patient(form.getByRole('img', { name: 'Photo to send' })).toBeVisible();
  }
  const from = Date.now();
  await form.getByRole('button', { name: 'Save checkpoint' }).tap();
  await patient(form).toBeHidden();
  return { from, to: Date.now() };
}

/**
 * A courier company's owner, signed up through the API and named, on a desk (1366x768) that never loses its signal; on
 * the run's server, or on `baseURL` (a spec's own server).
 */
export async function companyAtDesk(
  browser: Browser,
  tag: string,
  baseURL?: string,
): Promise<{ desk: BrowserContext; owner: Page; ownerToken: string }> {
  const desk = await browser.newContext({ viewport: { width: 1366, height: 768 }, ...(baseURL ? { baseURL } : {}) });
  const owner = await desk.newPage();
  const ownerToken = await signUpViaApi(owner, owner.request, uniqueEmail(`${tag}-owner`), 'company');
  await apiPost(owner.request, ownerToken, '/v1/user/general/update', { profile: { company: 'SwiftParcel Couriers', showWizard: false } });
  return { desk, owner, ownerToken };
}

/** A courier company's owner at a desk, and one courier of theirs (added through the API) with a password to sign in. */
export async function companyWithCourier(browser: Browser, tag: string, baseURL?: string) {
  const atDesk = await companyAtDesk(browser, tag, baseURL);
  const courierEmail = uniqueEmail(`${tag}-courier`);
  const courierPassword = 'courierpass1';
  const added = await addCourierViaApi(atDesk.owner.request, atDesk.ownerToken, courierEmail, { password: courierPassword });
  expect(added.status, JSON.stringify(added)).toBe('success');
  return { ...atDesk, courierEmail, courierPassword };
}

/**
 * Shipments handed to a courier through the API, one per recipient, to `${firstNumber + i} ${street}, Austin`, from the
 * depot at 1 Main St, Springfield; with `notes`, each carries "Note for <name>". Resolves with their numbers.
 */
export async function handOutToCourier(
  request: APIRequestContext,
  token: string,
  courierEmail: string,
  names: string[],
  o: { firstNumber: number; street: string; notes?: boolean },
): Promise<string[]> {
  const tids: string[] = [];
  for (const [i, name] of names.entries()) {
    const created = await apiPost(request, token, '/v1/shipment/create', {
      origin: { name: 'Depot', address1: '1 Main St', city: 'Springfield', zip: '62701' },
      destination: { name, address1: `${o.firstNumber + i} ${o.street}`, city: 'Austin', zip: '73301', phone: '5125550100' },
      parcels: [{ name: 'Box', length: 9, width: 6, height: 4, weight: 2 }],
      ...(o.notes ? { message: `Note for ${name}` } : {}),
      courier: 'Dana Lee',
      courierEmail,
    });
    expect(created.status, JSON.stringify(created)).toBe('success');
    tids.push(created.payload.tid as string);
  }
  return tids;
}

/** How many of a stored shipment's checkpoints have `status`. */
export const countCheckpoints = (s: StoredShipment, status: string) => s.checkpoints.filter((c) => c.status === status).length;

/**
 * The set-up of a spec whose courier works without signal (offline, restart-offline): before its tests, a company at a
 * desk and its courier (on the run's server, or on `o.baseURL`), closed after them. Its fields are filled once the
 * beforeAll ran; `handOut` gives the courier a shipment per recipient, at `${o.firstNumber + i} ${o.street}`, Austin.
 */
export function courierWithoutSignal(tag: string, o: { firstNumber: number; street: string; baseURL?: string }) {
  const day = {
    desk: undefined as BrowserContext | undefined,
    owner: undefined as unknown as Page,
    ownerToken: '',
    courierEmail: '',
    courierPassword: '',
    handOut: (names: string[]) => handOutToCourier(day.owner.request, day.ownerToken, day.courierEmail, names, o),
    /** A shipment as the owner's API reads it. */
    stored: (tid: string) => storedShipment(day.owner.request, day.ownerToken, tid),
  };
  test.beforeAll(async ({ browser }) => {
    Object.assign(day, await companyWithCourier(browser, tag, o.baseURL));
  });
  test.afterAll(async () => {
    await day.desk?.close();
  });
  return day;
}

/** Screenshots of a phone spec, to `PHONE_SHOTS` or test-results/<spec>, named by profile; after the page settles. */
export function phoneShots(spec: string): (page: Page, name: string) => Promise<void> {
  const dir = process.env.PHONE_SHOTS ?? `test-results/${spec}`;
  mkdirSync(dir, { recursive: true });
  return async (page, name) => {
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${dir}/${test.info().project.name}-${name}.png` });
  };
}

/**
 * The server's own label barcode (labels.ts barcodePng: the PNG the label PDF embeds). Imported by path at run time:
 * the web app's type check does not follow it into the server's dependencies.
 */
const LABELS = '../../server/src/modules/shipments/labels.ts';
export const labelBarcodePng = async (tid: string): Promise<Buffer> =>
  ((await import(LABELS)) as { barcodePng: (t: string) => Promise<Buffer> }).barcodePng(tid);

/** An address as the shipment wizard's Origin or Destination group asks for it (the fields both sides have). */
export interface WizardAddress {
  name: string;
  address1: string;
  city: string;
  state: string;
  zip: string;
}
/** The depot the E2E owners ship from. */
export const SPRINGFIELD_DEPOT: WizardAddress = {
  name: 'Acme Warehouse',
  address1: '1 Main St',
  city: 'Springfield',
  state: 'IL',
  zip: '62701',
};
/** A recipient in Austin, by name. */
export const austinRecipient = (name: string): WizardAddress => ({ name, address1: '9 Elm St', city: 'Austin', state: 'TX', zip: '73301' });

/** Types an address into the wizard's group (`Origin (sender)` or `Destination (recipient)`). */
export async function fillWizardAddress(group: Locator, a: WizardAddress) {
  await group.getByLabel('Name').fill(a.name);
  await group.getByLabel('Address 1').fill(a.address1);
  await group.getByLabel('City').fill(a.city);
  await group.getByLabel('State').fill(a.state);
  await group.getByLabel('Zip').fill(a.zip);
}

/** Types a parcel's name and size (inches, pounds) into the wizard's `Parcel N` group. */
export async function fillWizardParcel(
  parcel: Locator,
  p: { name: string; length: string; width: string; height: string; weight: string },
) {
  for (const [label, value] of [
    ['Name', p.name],
    ['Length', p.length],
    ['Width', p.width],
    ['Height', p.height],
    ['Weight', p.weight],
  ] as const)
    await parcel.getByRole('textbox', { name: label, exact: true }).fill(value);
}

/** Three couriers added through the API to the owner's team (Ada North, Ben East, Cy West), by email and name. */
export async function addThreeCouriers(request: APIRequestContext, ownerToken: string) {
  const couriers: Array<{ email: string; name: string }> = [];
  for (const [first, last] of [
    ['Ada', 'North'],
    ['Ben', 'East'],
    ['Cy', 'West'],
  ] as const) {
    const email = uniqueEmail(first.toLowerCase());
    const r = await addCourierViaApi(request, ownerToken, email, { firstName: first, lastName: last });
    expect(r.code, JSON.stringify(r)).toBe(201);
    couriers.push({ email, name: `${first} ${last}` });
  }
  return couriers;
}

/** A shipment created through the API (the body as POST /v1/shipment/create takes it); resolves with its number. */
export async function createShipmentViaApi(request: APIRequestContext, token: string, body: unknown): Promise<string> {
  const r = await apiPost(request, token, '/v1/shipment/create', body);
  expect(r.code, JSON.stringify(r)).toBe(201);
  return r.payload.tid as string;
}

/** The stops of one courier's route on the plan page. */
export const planStopsOf = (page: Page, courierEmail: string) =>
  page.locator(`[data-testid="plan-route"][data-courier="${courierEmail}"] [data-testid="plan-stop"]`);
