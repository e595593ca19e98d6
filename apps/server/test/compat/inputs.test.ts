// Inputs as the original API's clients send them: paths with a trailing slash, null for every optional field
// (at any depth), required fields sent as null, and the one tracking-number length limit. Default status
// contract (no opt-in header): the result is read from the envelope's code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, TRACKING_NUMBER_MAX } from '@shiptrail/contract';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { EX } from '../trackings/fixtures.ts';

let env: TestEnv;
let user: Awaited<ReturnType<typeof signUp>>;
beforeAll(async () => {
  env = await createTestEnv();
  user = await signUp(env.app, { userType: 'company' });
});
afterAll(async () => {
  await env?.close();
});

async function v1(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) {
  const res = await env.app.inject({
    method,
    url,
    headers: { 'sm-api-token': user.apiKey },
    ...(body !== undefined ? { payload: body as object } : {}),
  });
  expect(res.statusCode).toBe(200);
  return res.json() as { code: number; status: string; message: string; payload: any };
}

const allNull = { title: null, courier: null, orderId: null, customer: null, notify: { email: null, phone: null }, note: null };

describe('trackings as the original clients call them', () => {
  it('add, update, list and delivered with trailing slashes and null for every optional field', async () => {
    const added = await v1('POST', '/v1/trackings/add/', { tid: EX.usps.delivered, ...allNull });
    expect(added).toMatchObject({
      code: 201,
      status: 'success',
      payload: {
        tid: EX.usps.delivered,
        courier: 'usps',
        title: '',
        orderId: '',
        customer: '',
        note: '',
        notify: { email: '', phone: '' },
      },
    });

    await v1('PUT', '/v1/trackings/update/', {
      tid: EX.usps.delivered,
      title: 'Lamp',
      orderId: 'O-9',
      notify: { email: 'c@example.com', phone: null },
    });
    // null keeps what is stored (a notify with only nulls included): the update sends only what changes.
    const updated = await v1('PUT', '/v1/trackings/update/', { tid: EX.usps.delivered, ...allNull });
    expect(updated).toMatchObject({ code: 200, payload: { title: 'Lamp', orderId: 'O-9', notify: { email: 'c@example.com', phone: '' } } });
    const phoneOnly = await v1('PUT', '/v1/trackings/update/', { tid: EX.usps.delivered, notify: { email: null, phone: '2125550142' } });
    // A notify that is given replaces both contacts, as documented: the email left out (null) is cleared.
    expect(phoneOnly.payload.notify).toEqual({ email: '', phone: '(212) 555-0142' });

    const page = await v1('GET', '/v1/trackings/get/?numRecords=10&v=1');
    expect(page.code).toBe(200);
    expect(page.payload.map((t: { tid: string }) => t.tid)).toEqual([EX.usps.delivered]);
    expect((await v1('GET', `/v1/trackings/delivered/${EX.usps.delivered}/`)).code).toBe(200);
  });

  it('a required field sent as null fails with its "required" message', async () => {
    const r = await v1('POST', '/v1/trackings/add/', { tid: null, ...allNull });
    expect(r).toMatchObject({
      code: 400,
      status: 'fail',
      message: MSG.trackingNumberRequired,
      payload: { errors: { tid: MSG.trackingNumberRequired } },
    });
    const contact = await v1('POST', '/v1/user/general/getintouch/', { name: null, email: null, phone: null, message: 'hi' });
    expect(contact).toMatchObject({ code: 400, payload: { errors: { name: MSG.fullNameRequired, email: MSG.emailRequired } } });
  });

  it(`one length limit: ${TRACKING_NUMBER_MAX} letters and digits pass form, contract and detection; one more gets one message`, async () => {
    // A USPS IMpb scan with its 420 + ZIP routing prefix: 42 digits; the trackable number is its last 34.
    const impb42 = '420123459212345678901234567890123456789013';
    const ok = await v1('POST', '/v1/trackings/add', { tid: impb42, ...allNull });
    expect(ok).toMatchObject({ code: 201, payload: { tid: '9212345678901234567890123456789013', courier: 'usps' } });
    const tooLong = await v1('POST', '/v1/trackings/add', { tid: `${impb42}5`, courier: 'usps' });
    expect(tooLong).toMatchObject({
      code: 400,
      message: MSG.trackingNumberTooLong,
      payload: { errors: { tid: MSG.trackingNumberTooLong } },
    });
    const detect = await v1('POST', '/v1/couriers/detect/', { tid: `${impb42}5` });
    expect(detect).toMatchObject({ code: 400, message: MSG.trackingNumberTooLong });
  });
});

describe('account calls as the original clients send them', () => {
  it('user info and update with trailing slashes; null in profile and settings means "not given"', async () => {
    expect(
      (await v1('POST', '/v1/user/general/update/', { profile: { firstName: 'Grace', phone: '2125550142', company: 'ACME' } })).code,
    ).toBe(200);
    const saved = await v1('POST', '/v1/user/general/update/', {
      profile: {
        firstName: null,
        lastName: null,
        phone: null,
        image: null,
        company: null,
        companyUrl: null,
        InvoiceExtraInfo: null,
        timeZone: null,
        token: null,
      },
      settings: {
        themeid: null,
        emailContent: null,
        receiveNotification: { email: { triggers: { Delivered: true, Exception: null }, endpoint: null }, webhook: null },
      },
    });
    expect(saved).toMatchObject({ code: 200, status: 'success' });
    expect(saved.payload.profile).toMatchObject({ firstName: 'Grace', phone: '(212) 555-0142', company: 'ACME' });
    expect(saved.payload.settings.receiveNotification.email).toEqual({
      triggers: expect.objectContaining({ Delivered: true }),
      endpoint: '',
    });
    const info = await v1('GET', '/v1/user/info/?v=abc');
    expect(info.payload.profile.firstName).toBe('Grace');
    expect((await v1('GET', '/v1/info/pricing/')).code).toBe(200);
  });
});
