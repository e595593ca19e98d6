import {
  APPROACH_DEFAULTS,
  DEFAULT_CUSTOMER_EMAIL_TRIGGERS,
  TRIGGER_EVENTS,
  THEME_IDS,
  type ApproachSettings,
  type Settings,
  type ThemeId,
} from '@shiptrail/contract';

type Channel = { triggers: Record<string, boolean>; endpoint: string };
export interface StoredSettings {
  themeid?: ThemeId;
  sendNotification?: { email?: Channel; phone?: Channel };
  receiveNotification?: { email?: Channel; phone?: Channel; webhook?: Channel };
  approach?: Partial<ApproachSettings>;
}

/** The company's approach thresholds (decision 129), defaults for what it has not set. */
export function approachOf(stored: StoredSettings | null | undefined): ApproachSettings {
  const a = stored?.approach ?? {};
  return {
    stops: Number.isInteger(a.stops) ? a.stops! : APPROACH_DEFAULTS.stops,
    meters: Number.isInteger(a.meters) ? a.meters! : APPROACH_DEFAULTS.meters,
  };
}

const emptyTriggers = () => Object.fromEntries(TRIGGER_EVENTS.map((t) => [t, false])) as Record<string, boolean>;
const channel = (c?: Partial<Channel>): Channel => ({
  triggers: { ...emptyTriggers(), ...(c?.triggers ?? {}) },
  endpoint: c?.endpoint ?? '',
});

/**
 * The settings a new account is created with (decision 100): customer mail on the triggers of
 * DEFAULT_CUSTOMER_EMAIL_TRIGGERS. Stored at creation, never filled in on read: an existing account's missing
 * trigger (FailAttempt, added later) reads as off, so nobody's settings change under them.
 */
export function initialSettings(): StoredSettings {
  const on = Object.fromEntries(DEFAULT_CUSTOMER_EMAIL_TRIGGERS.map((t) => [t, true]));
  return {
    sendNotification: {
      email: { triggers: { ...emptyTriggers(), ...on }, endpoint: '' },
      phone: { triggers: emptyTriggers(), endpoint: '' },
    },
  };
}

/** Whether the account sends its customers anything on this channel (what the public page may promise). */
export function sendsToCustomers(stored: StoredSettings, channel: 'email' | 'phone'): boolean {
  return Object.values(stored.sendNotification?.[channel]?.triggers ?? {}).some(Boolean);
}

/**
 * The public page says where notifications go: only the channels the owner sends its customers anything on, so
 * the promise made there is kept (decision 100).
 */
export function promisedNotify(notify: { email: string; phone: string }, stored: StoredSettings): { email: string; phone: string } {
  return { email: sendsToCustomers(stored, 'email') ? notify.email : '', phone: sendsToCustomers(stored, 'phone') ? notify.phone : '' };
}

/** Settings as the API shows them: every channel and trigger present, defaults filled in. */
export function settingsView(stored: StoredSettings, webhookSecret: string): Settings {
  return {
    themeid: stored.themeid && (THEME_IDS as readonly string[]).includes(stored.themeid) ? stored.themeid : 'A',
    sendNotification: { email: channel(stored.sendNotification?.email), phone: channel(stored.sendNotification?.phone) },
    receiveNotification: {
      email: channel(stored.receiveNotification?.email),
      phone: channel(stored.receiveNotification?.phone),
      webhook: channel(stored.receiveNotification?.webhook),
    },
    approach: approachOf(stored),
    emailContent: null,
    webhookSecret,
  };
}

/** Merge an update into the stored settings: channels given replace their stored triggers and endpoint. */
export function mergeSettings(stored: StoredSettings, update: StoredSettings): StoredSettings {
  const out: StoredSettings = { ...stored };
  if (update.themeid) out.themeid = update.themeid;
  if (update.approach) out.approach = { ...stored.approach, ...update.approach };
  if (update.sendNotification)
    out.sendNotification = { ...stored.sendNotification, ...mergeChannels(stored.sendNotification, update.sendNotification) };
  if (update.receiveNotification)
    out.receiveNotification = { ...stored.receiveNotification, ...mergeChannels(stored.receiveNotification, update.receiveNotification) };
  return out;
}

function mergeChannels<T extends Record<string, Channel | undefined>>(stored: T | undefined, update: T): T {
  const out: Record<string, Channel> = {};
  for (const [k, v] of Object.entries(update)) {
    if (!v) continue;
    out[k] = { triggers: { ...(stored?.[k]?.triggers ?? {}), ...v.triggers }, endpoint: v.endpoint };
  }
  return out as T;
}

/**
 * Where a channel actually sends: its endpoint, or for email and phone the profile's address when the
 * endpoint is empty or 'false' (product rules §4).
 */
export function effectiveEndpoint(
  kind: 'email' | 'phone' | 'webhook',
  endpoint: string | undefined,
  profile: { email: string; phone: string },
): string {
  const e = (endpoint ?? '').trim();
  if (e && e !== 'false') return e;
  if (kind === 'email') return profile.email;
  if (kind === 'phone') return profile.phone;
  return '';
}
