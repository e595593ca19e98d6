import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is 'whsec_' + base64 of the
 * key bytes; the signature is 'v1,' + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)).
 * During a rotation both the new and the previous secret sign, space-separated, so a receiver that
 * still holds the old secret keeps verifying until it switches.
 */
export const SECRET_PREFIX = 'whsec_';
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3600 * 1000;

/** A new secret: 24 random bytes in standard base64 (what other Standard Webhooks libraries decode). */
export const newWebhookSecret = () => SECRET_PREFIX + randomBytes(24).toString('base64');

function keyOf(secret: string): Buffer {
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  // Node's base64 decoder also takes the url-safe alphabet, so secrets made before the switch to
  // standard base64 still sign the same way.
  return Buffer.from(b64, 'base64');
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  return 'v1,' + createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
}

export interface SecretSet {
  webhookSecret: string;
  webhookSecretPrev: string | null;
  webhookSecretPrevUntil: Date | null;
}

/** The webhook-signature header value: the current secret, and the previous one while it is still valid. */
export function signatureHeader(secrets: SecretSet, id: string, timestampSeconds: number, body: string, now: Date): string {
  const sigs = [sign(secrets.webhookSecret, id, timestampSeconds, body)];
  if (secrets.webhookSecretPrev && secrets.webhookSecretPrevUntil && secrets.webhookSecretPrevUntil > now) {
    sigs.push(sign(secrets.webhookSecretPrev, id, timestampSeconds, body));
  }
  return sigs.join(' ');
}
