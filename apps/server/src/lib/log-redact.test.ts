import { describe, expect, it } from 'vitest';
import { redactUrl } from './log-redact.ts';

describe('redactUrl', () => {
  it('censors the one-time key of a verification or reset address', () => {
    expect(redactUrl('/v1/user/email/verify/Ab12Cd34Ef56')).toBe('/v1/user/email/verify/[redacted]');
    expect(redactUrl('/verify/Ab12Cd34Ef56?x=1')).toBe('/verify/[redacted]?x=1');
    expect(redactUrl('/password/reset/Zz99')).toBe('/password/reset/[redacted]');
  });

  it('censors secret query values and keeps the rest', () => {
    expect(redactUrl('/auth/google/callback?code=4%2F0Abc&state=s3cr3t&scope=email')).toBe(
      '/auth/google/callback?code=[redacted]&state=[redacted]&scope=email',
    );
    expect(redactUrl('/v1/trackings/get?numRecords=10&Token=abc')).toBe('/v1/trackings/get?numRecords=10&Token=[redacted]');
    expect(redactUrl('/x?%74oken=abc')).toBe('/x?%74oken=[redacted]');
  });

  it('leaves addresses without secrets alone, malformed ones included', () => {
    for (const u of ['/', '/v1/trackings/get?numRecords=10', '/track/abc/1Z5R89390350075608', '/x?%zz=1', '/x?flag'])
      expect(redactUrl(u)).toBe(u);
  });
});
