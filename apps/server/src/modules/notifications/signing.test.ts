import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, sign, signatureHeader } from './signing.ts';

describe('Standard Webhooks signing', () => {
  it('signs `${id}.${timestamp}.${body}` with HMAC-SHA256 of the base64 key after whsec_', () => {
    const key = Buffer.from('0123456789abcdef0123456789abcdef');
    const secret = 'whsec_' + key.toString('base64');
    const body = '{"type":"tracking.status_changed"}';
    const expected = 'v1,' + createHmac('sha256', key).update(`msg_1.1700000000.${body}`).digest('base64');
    expect(sign(secret, 'msg_1', 1700000000, body)).toBe(expected);
    // A url-safe secret made before the switch to standard base64 signs the same way.
    expect(sign('whsec_' + key.toString('base64url'), 'msg_1', 1700000000, body)).toBe(expected);
    expect(sign(secret, 'msg_2', 1700000000, body)).not.toBe(expected);
  });

  it('new secrets are whsec_ plus 24 random bytes in standard base64', () => {
    const s = newWebhookSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(newWebhookSecret()).not.toBe(s);
  });

  it('during a rotation both secrets sign, space-separated, until the previous one expires', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const secrets = {
      webhookSecret: newWebhookSecret(),
      webhookSecretPrev: newWebhookSecret(),
      webhookSecretPrevUntil: new Date(now.getTime() + 1000),
    };
    const header = signatureHeader(secrets, 'msg', 1, '{}', now);
    expect(header.split(' ')).toEqual([sign(secrets.webhookSecret, 'msg', 1, '{}'), sign(secrets.webhookSecretPrev, 'msg', 1, '{}')]);
    expect(signatureHeader(secrets, 'msg', 1, '{}', new Date(now.getTime() + 1000))).toBe(sign(secrets.webhookSecret, 'msg', 1, '{}'));
    expect(signatureHeader({ ...secrets, webhookSecretPrev: null }, 'msg', 1, '{}', now)).toBe(sign(secrets.webhookSecret, 'msg', 1, '{}'));
  });
});
