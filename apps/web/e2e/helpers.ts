import { expect, type APIRequestContext, type Page } from '@playwright/test';

export const uniqueEmail = (tag: string) => `${tag}.${Date.now()}.${Math.floor(Math.random() * 1e6)}@example.com`;

interface OutboxMail {
  id: number;
  to: string;
  subject: string;
  text: string;
  html?: string | null;
  createdAt: string;
}

/** Waits for a mail to `to` in the dev outbox (GET /dev/mail/api) and returns the first link path matching. */
export async function linkFromOutbox(request: APIRequestContext, to: string, pathPrefix: string): Promise<string> {
  let found = '';
  await expect
    .poll(
      async () => {
        const res = await request.get('/dev/mail/api');
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
