import { describe, expect, it } from 'vitest';
import { MSG } from './messages.ts';
import { TRACKING_NUMBER_MAX } from './constants.ts';
import { fieldErrors, nullAsAbsent, parseRequest } from './common.ts';
import { addTrackingRequest, updateTrackingRequest } from './trackings.ts';
import { getInTouchRequest, passwordResetRequest, signupRequest, updateRequest } from './accounts.ts';

// null means "not given" in every request body, at any depth; required fields sent as null still fail
// with their "required" message.
describe('parseRequest: null is "not given"', () => {
  it('accepts the original SDK README add-tracking body (null for every left-out field)', () => {
    const r = parseRequest(addTrackingRequest, {
      tid: '1Z5R89390350075608',
      title: null,
      courier: null,
      orderId: null,
      customer: null,
      notify: { email: null, phone: null },
      note: null,
    });
    expect(r.success).toBe(true);
    // notify with only nulls is not given at all.
    expect(r.data).toEqual({ tid: '1Z5R89390350075608', courier: null });
  });

  it('drops null at any depth, also for update and account bodies', () => {
    expect(parseRequest(updateTrackingRequest, { tid: 'X1', notify: null, note: null }).data).toEqual({ tid: 'X1', courier: null });
    expect(parseRequest(updateTrackingRequest, { tid: 'X1', notify: { email: 'a@example.com', phone: null } }).data?.notify).toEqual({
      email: 'a@example.com',
    });
    const u = parseRequest(updateRequest, {
      profile: { firstName: null, phone: null, company: 'ACME' },
      settings: {
        themeid: null,
        emailContent: null,
        receiveNotification: {
          email: { triggers: { Delivered: true, Exception: null }, endpoint: null },
          webhook: { triggers: { Delivered: null }, endpoint: null },
        },
      },
    });
    expect(u.success).toBe(true);
    expect(u.data?.profile).toEqual({ company: 'ACME' });
    expect(u.data?.settings?.receiveNotification).toEqual({ email: { triggers: { Delivered: true }, endpoint: '' } });
    expect(parseRequest(updateRequest, { profile: { firstName: null }, settings: null }).data).toEqual({});
  });

  it('a required field sent as null fails with its "required" message', () => {
    const tid = parseRequest(addTrackingRequest, { tid: null, title: null });
    expect(tid.success).toBe(false);
    expect(fieldErrors(tid.error!)).toEqual({ tid: MSG.trackingNumberRequired });
    const contact = parseRequest(getInTouchRequest, { name: null, email: null, phone: null, message: null });
    expect(fieldErrors(contact.error!)).toEqual({ name: MSG.fullNameRequired, email: MSG.emailRequired, message: MSG.messageRequired });
    const signup = parseRequest(signupRequest, { email: 'a@example.com', password: null, repassword: null, terms: null });
    expect(fieldErrors(signup.error!)).toMatchObject({ password: MSG.passwordRequired, terms: MSG.termsRequired });
    expect(fieldErrors(parseRequest(passwordResetRequest, { password: 'secret12', verifycode: null }).error!)).toEqual({
      verifycode: MSG.resetLinkInvalid,
    });
  });

  it('a missing or null body is an empty object', () => {
    expect(fieldErrors(parseRequest(addTrackingRequest, undefined).error!)).toEqual({ tid: MSG.trackingNumberRequired });
    expect(parseRequest(addTrackingRequest, null).success).toBe(false);
    expect(fieldErrors(parseRequest(addTrackingRequest, { tid: null }).error!)).toEqual({ tid: MSG.trackingNumberRequired });
  });

  it('array items are kept; objects inside them are cleaned', () => {
    expect(nullAsAbsent({ list: [null, 1, { a: null, b: 2 }, { c: null }] })).toEqual({ list: [null, 1, { b: 2 }, {}] });
  });
});

describe('tracking number length: one limit, one message', () => {
  const impb42 = '420123459212345678901234567890123456789013';
  it(`accepts ${TRACKING_NUMBER_MAX} letters and digits, counted without spaces and dashes`, () => {
    expect(impb42.length).toBe(TRACKING_NUMBER_MAX);
    expect(parseRequest(addTrackingRequest, { tid: impb42 }).success).toBe(true);
    expect(parseRequest(addTrackingRequest, { tid: impb42.replace(/(\d{4})/g, '$1 - ') }).success).toBe(true);
  });
  it('refuses one more with MSG.trackingNumberTooLong', () => {
    for (const tid of [impb42 + '7', 'A'.repeat(500)]) {
      const r = parseRequest(addTrackingRequest, { tid });
      expect(fieldErrors(r.error!)).toEqual({ tid: MSG.trackingNumberTooLong });
    }
    expect(MSG.trackingNumberTooLong).toBe(`A tracking number has at most ${TRACKING_NUMBER_MAX} letters and digits`);
  });
});
