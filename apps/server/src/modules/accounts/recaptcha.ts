import { MSG } from '@shiptrail/contract';
import type { Config } from '../../config.ts';
import { badRequest } from '../../lib/errors.ts';

/** Server-side reCAPTCHA check when RECAPTCHA_SECRET is set; skipped otherwise (local installs, tests). */
export async function verifyRecaptcha(config: Config, token: string | undefined, ip: string): Promise<void> {
  if (!config.RECAPTCHA_SECRET) return;
  if (!token) throw badRequest(MSG.recaptchaFailed);
  let ok: boolean;
  try {
    const res = await fetch(config.RECAPTCHA_VERIFY_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret: config.RECAPTCHA_SECRET, response: token, remoteip: ip }),
      signal: AbortSignal.timeout(5000),
    });
    const body = (await res.json()) as { success?: boolean };
    ok = res.ok && body.success === true;
  } catch {
    ok = false;
  }
  if (!ok) throw badRequest(MSG.recaptchaFailed);
}
