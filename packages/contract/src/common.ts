import { z } from 'zod';
import { MSG } from './messages.ts';

/** Every /v1 response body (ARCHITECTURE §4): code repeats the HTTP status. */
export const envelopeSchema = <T extends z.ZodType>(payload: T) =>
  z.object({
    code: z.number().int(),
    status: z.enum(['success', 'fail']),
    message: z.string(),
    payload,
  });
export type Envelope<T> = { code: number; status: 'success' | 'fail'; message: string; payload: T };

/** Field errors in a failed validation: payload.errors[field] = message. */
export const validationErrorPayload = z.object({ errors: z.record(z.string(), z.string()) });

const trimmed = z.string().trim();

export const emailField = trimmed
  .min(1, MSG.emailRequired)
  .max(254, MSG.emailInvalid)
  .pipe(z.email({ message: MSG.emailInvalid }))
  .transform((s) => s.toLowerCase());

/** Required text: missing, null and blank all get `message` (null is "not given", see parseRequest). */
/**
 * A string whose absence (or a value of another type) reads `message`. Only that issue: a check without a message
 * of its own (a length limit) keeps the default human text instead of claiming the field is missing.
 */
export const requiredText = (message: string) => z.string({ error: (issue) => (issue.code === 'invalid_type' ? message : undefined) });
export const requiredString = (message: string, max = 200) => requiredText(message).trim().min(1, message).max(max);
export const optionalString = (max = 200) => trimmed.max(max).optional();

/** An IANA time zone this runtime knows ("America/New_York"), as Intl names them. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
/** The zone a company's customer messages are written in; an unknown name is refused, not stored. */
export const timeZoneField = (message: string) => trimmed.max(64).refine(isTimeZone, { message }).optional();

/**
 * Characters a name that signs other people's mail and SMS must not carry: C0 and C1 controls (line breaks
 * among them) and the bidi embeddings, overrides and isolates (U+202A-E, U+2066-9) that make text read
 * other than it is stored ("gnp.exe"). Refused on save; cleanText strips them from what is served.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
export const hasUnsafeText = (s: string) => new RegExp(UNSAFE_TEXT.source).test(s);
/** A stored name as it may be shown: unsafe characters dropped, runs of spaces left by them folded, trimmed. */
export const cleanText = (s: string) =>
  s
    .replace(UNSAFE_TEXT, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();
/** Optional one-line text that signs messages to others (a company or person name): no controls, no bidi overrides. */
export const saneText = (max: number, message: string) =>
  trimmed
    .max(max)
    .refine((s) => !hasUnsafeText(s), message)
    .optional();

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/**
 * A logo or site address a company publishes with its brand (the public tracking API, mails): https only, or
 * http to this machine's loopback for development. Never javascript:, data: or anything a consumer would run.
 */
/** A logo the company uploaded, served by this deployment (POST /v1/user/general/logo): a path with a version. */
export const UPLOADED_LOGO_PATH = /^\/v1\/brand\/logo\/[A-Za-z0-9_-]{1,64}\.png(\?v=\d{1,16})?$/;
export function isBrandUrl(value: string): boolean {
  if (UPLOADED_LOGO_PATH.test(value)) return true;
  if (!URL.canParse(value)) return false;
  const u = new URL(value);
  if (u.username || u.password || !u.hostname) return false;
  return u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname));
}
/** What is served for a stored brand address: the address when it passes isBrandUrl, else '' (rows saved before the rule). */
export const cleanBrandUrl = (value: string) => (value && isBrandUrl(value.trim()) ? value.trim() : '');
export const brandUrlField = (max: number) =>
  trimmed
    .max(max)
    .refine((s) => isBrandUrl(s), MSG.urlInvalid)
    .optional();

/**
 * `null` means "not given" in every /v1 request body, at any depth. Clients of the original API (its Node SDK
 * among them) send null for each optional field they leave out, so a null property is dropped before the
 * schema sees it: an optional field then takes its default (an update keeps the stored value) and a required
 * one fails with its "required" message. An object whose properties were all null is itself not given
 * (`notify: {email: null, phone: null}` leaves the contacts alone, as leaving `notify` out does). Array items
 * are kept (a null item is a value, not a left-out field); objects inside them are cleaned.
 */
export function nullAsAbsent(value: unknown): unknown {
  const cleaned = clean(value);
  return cleaned === undefined && value !== undefined && value !== null ? {} : cleaned;
}
function clean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === null ? v : (clean(v) ?? {})));
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value ?? undefined;
  const entries = Object.entries(value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) {
    const c = clean(v);
    if (c !== undefined) out[k] = c;
  }
  return entries.length > 0 && Object.keys(out).length === 0 ? undefined : out;
}

/**
 * The one way a /v1 request (body, query or path parameters) is checked against its contract schema: the
 * null rule above, then the schema. A missing body counts as an empty object.
 */
export function parseRequest<S extends z.ZodType>(schema: S, data: unknown): z.ZodSafeParseResult<z.output<S>> {
  return schema.safeParse(nullAsAbsent(data ?? {}));
}

/**
 * US phone numbers only (product rules §5, §9): a leading +1 or + is stripped, the rest must be a valid NANP
 * number (area code and exchange start with 2-9). Returned as (AAA) EEE-NNNN; `toE164` gives the SMS form.
 */
export function normalizeUsPhone(raw: string): string | null {
  let s = raw.trim().replace(/^\+1/, '').replace(/^\+/, '');
  s = s.replace(/[\s().-]/g, '');
  if (s.length === 11 && s.startsWith('1')) s = s.slice(1);
  if (!/^[2-9]\d{2}[2-9]\d{6}$/.test(s)) return null;
  return `(${s.slice(0, 3)}) ${s.slice(3, 6)}-${s.slice(6)}`;
}
export function toE164(phone: string): string {
  return '+1' + phone.replace(/\D/g, '').slice(-10);
}

/** An optional field: empty or missing means none; otherwise `normalize` must accept it (null = invalid). */
const optionalNormalized = (normalize: (v: string) => string | null, message: string) =>
  z
    .string()
    .trim()
    .optional()
    .nullable()
    .transform((v, ctx) => {
      if (v === undefined || v === null || v === '') return undefined;
      const n = normalize(v);
      if (n === null) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return n;
    });

/** Optional US phone, normalised to (AAA) EEE-NNNN. */
export const optionalUsPhone = (message: string = MSG.phoneInvalid) => optionalNormalized(normalizeUsPhone, message);

/** Optional email, lower-cased. */
export const optionalEmailField = (message: string = MSG.emailInvalid) =>
  optionalNormalized((v) => (v.length <= 254 && z.email().safeParse(v).success ? v.toLowerCase() : null), message);

/** Dollars as the original API shows them: 9.95 for 995 cents. */
export const centsToDollars = (cents: number) => Math.round(cents) / 100;
export const dollarsToCents = (dollars: number) => Math.round(dollars * 100);

/** Flatten zod issues into { field: message }, first message per field. */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.join('.') : '_';
    if (!(key in out)) out[key] = issue.message;
  }
  return out;
}

/** "a,b" or a list (repeated query values) → a list of `item`; absent or empty means no filter. */
export const listOf = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v) =>
      v === undefined
        ? []
        : (Array.isArray(v) ? v : [v])
            .flatMap((s) => s.split(','))
            .map((s) => s.trim())
            .filter(Boolean),
    )
    .pipe(z.array(item));

/** A list's page size: a whole number from 1, capped at `max` (a larger ask gets `max`), `fallback` when absent. */
export const pageSizeField = (max: number, fallback: number) =>
  z.coerce
    .number({ error: 'numRecords must be a number' })
    .int('numRecords must be a whole number')
    .min(1, 'numRecords must be at least 1')
    .transform((n) => Math.min(n, max))
    .default(fallback);

/** Keyset paging: the number the page starts after; empty means the first page. */
export const afterNumberField = () =>
  z
    .string()
    .trim()
    .max(64)
    .optional()
    .transform((v) => (v ? v : undefined));
