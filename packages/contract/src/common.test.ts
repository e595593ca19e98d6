import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MSG } from './messages.ts';
import {
  emailField,
  envelopeSchema,
  fieldErrors,
  normalizeUsPhone,
  optionalEmailField,
  optionalUsPhone,
  toE164,
  centsToDollars,
  dollarsToCents,
} from './common.ts';

describe('emailField', () => {
  it('trims and lower-cases a valid address', () => {
    expect(emailField.parse('  Ada@Example.COM ')).toBe('ada@example.com');
  });
  it('says which rule failed: empty is required, a malformed or overlong one is invalid', () => {
    const message = (v: string) => emailField.safeParse(v).error?.issues[0]?.message;
    expect(message('')).toBe(MSG.emailRequired);
    expect(message('   ')).toBe(MSG.emailRequired);
    expect(message('not-an-email')).toBe(MSG.emailInvalid);
    expect(message('a@b')).toBe(MSG.emailInvalid);
    expect(message(`${'a'.repeat(250)}@example.com`)).toBe(MSG.emailInvalid);
  });
});

describe('US phone numbers', () => {
  it.each([
    ['2125551234', '(212) 555-1234'],
    ['+1 212 555 1234', '(212) 555-1234'],
    ['+12125551234', '(212) 555-1234'],
    ['1-212-555-1234', '(212) 555-1234'],
    ['(212) 555-1234', '(212) 555-1234'],
    ['212.555.1234', '(212) 555-1234'],
  ])('normalises %s', (raw, want) => {
    expect(normalizeUsPhone(raw)).toBe(want);
  });
  it.each(['123', '1125551234', '2121551234', '21255512345', '+44 20 7946 0958', 'abcdefghij', ''])('refuses %s', (raw) => {
    expect(normalizeUsPhone(raw)).toBeNull();
  });
  it('gives the E.164 form for SMS', () => {
    expect(toE164('(212) 555-1234')).toBe('+12125551234');
  });
  it('optional: empty, null or missing is none; a bad one carries the given message', () => {
    const s = optionalUsPhone('Bad phone');
    expect(s.parse(undefined)).toBeUndefined();
    expect(s.parse(null)).toBeUndefined();
    expect(s.parse('  ')).toBeUndefined();
    expect(s.parse('212 555 1234')).toBe('(212) 555-1234');
    expect(s.safeParse('555').error?.issues[0]?.message).toBe('Bad phone');
    expect(optionalUsPhone().safeParse('555').error?.issues[0]?.message).toBe(MSG.phoneInvalid);
  });
});

describe('optionalEmailField', () => {
  it('lower-cases, treats empty as none and refuses a malformed address', () => {
    const s = optionalEmailField();
    expect(s.parse(' Bob@Example.org ')).toBe('bob@example.org');
    expect(s.parse('')).toBeUndefined();
    expect(s.safeParse('bob@').error?.issues[0]?.message).toBe(MSG.emailInvalid);
  });
});

describe('envelope', () => {
  const env = envelopeSchema(z.object({ n: z.number() }));
  it('accepts the four fields with a typed payload', () => {
    expect(env.parse({ code: 200, status: 'success', message: 'OK', payload: { n: 1 } })).toEqual({
      code: 200,
      status: 'success',
      message: 'OK',
      payload: { n: 1 },
    });
  });
  it('refuses an unknown status, a fractional code or a payload of the wrong shape', () => {
    expect(env.safeParse({ code: 200, status: 'ok', message: '', payload: { n: 1 } }).success).toBe(false);
    expect(env.safeParse({ code: 200.5, status: 'fail', message: '', payload: { n: 1 } }).success).toBe(false);
    expect(env.safeParse({ code: 400, status: 'fail', message: '', payload: { n: 'x' } }).success).toBe(false);
  });
});

describe('fieldErrors', () => {
  it('keeps the first message per dotted field path', () => {
    const s = z.object({ a: z.string().min(2, 'short').email('mail'), b: z.object({ c: z.number('num') }) });
    const r = s.safeParse({ a: 'x', b: { c: 'y' } });
    expect(fieldErrors(r.error!)).toEqual({ a: 'short', 'b.c': 'num' });
  });
});

describe('money', () => {
  it('converts cents and dollars without float drift', () => {
    expect(centsToDollars(995)).toBe(9.95);
    expect(dollarsToCents(0.1 + 0.2)).toBe(30);
    expect(dollarsToCents(centsToDollars(4))).toBe(4);
  });
});
