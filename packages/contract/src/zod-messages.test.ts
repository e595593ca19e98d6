import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  addTrackingRequest,
  fieldErrors,
  listTrackingsQuery,
  loginCodeRequest,
  MSG,
  supportRequest,
  TRACKING_NUMBER_MAX,
} from './index.ts';

// Importing the contract installs the human messages: both the server and the web app import it.
const errorsOf = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value);
  if (r.success) throw new Error('expected a validation error');
  return fieldErrors(r.error);
};

describe('human validation messages', () => {
  it("says how long a field may be, not zod's developer text", () => {
    expect(errorsOf(addTrackingRequest, { tid: '1Z999AA10123456784', orderId: 'x'.repeat(101) })).toEqual({
      orderId: 'Must be at most 100 characters',
    });
    expect(errorsOf(supportRequest, { message: 'x'.repeat(5001) })).toEqual({ message: 'Must be at most 5000 characters' });
  });

  it('calls a missing or empty field required', () => {
    expect(errorsOf(loginCodeRequest, { code: 'abc', state: '' })).toEqual({ state: 'This field is required' });
    expect(errorsOf(loginCodeRequest, { state: 'abc' })).toEqual({ code: 'This field is required' });
  });

  it('names the expected kind of value', () => {
    expect(errorsOf(z.object({ n: z.number() }), { n: 'seven' })).toEqual({ n: 'Must be a number' });
    expect(errorsOf(z.object({ n: z.number().min(3) }), { n: 2 })).toEqual({ n: 'Must be at least 3' });
    expect(errorsOf(z.object({ list: z.array(z.string()).max(2) }), { list: ['a', 'b', 'c'] })).toEqual({
      list: 'Must be at most 2 items',
    });
    expect(errorsOf(z.object({ k: z.enum(['a', 'b']) }), { k: 'c' })).toEqual({ k: 'Choose one of the options' });
    expect(errorsOf(z.object({ u: z.url() }), { u: 'nope' })).toEqual({ u: 'Invalid URL' });
  });

  it('keeps the messages a schema sets itself', () => {
    expect(errorsOf(addTrackingRequest, { tid: '' })).toEqual({ tid: MSG.trackingNumberRequired });
    expect(errorsOf(addTrackingRequest, { tid: 'x'.repeat(TRACKING_NUMBER_MAX + 1) })).toEqual({ tid: MSG.trackingNumberTooLong });
    expect(errorsOf(listTrackingsQuery, { numRecords: 'many' })).toEqual({ numRecords: 'numRecords must be a number' });
  });

  it("never lets zod's developer wording through for the common checks", () => {
    const schema = z.object({ a: z.string().max(3), b: z.string().min(4), c: z.number().int(), d: z.boolean(), e: z.email() });
    const errors = errorsOf(schema, { a: 'abcd', b: 'ab', c: 1.5, d: 'yes', e: 'x' });
    for (const m of Object.values(errors)) expect(m).not.toMatch(/Too big|Too small|expected|Invalid input/);
    expect(errors).toEqual({
      a: 'Must be at most 3 characters',
      b: 'Must be at least 4 characters',
      c: 'Must be a whole number',
      d: 'Must be yes or no',
      e: 'Invalid email address',
    });
  });
});
