// The original service's published Node SDK (npm shipmentmentor 1.0.5, unchanged) against the real app
// listening on loopback, driven as its README shows. The SDK has no option for the API address: its
// constructor picks a fixed host from the env argument and keeps it in the public instance property
// `apiEndpoint`, which every call reads, so the tests point that property at the local server.
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG } from '@shiptrail/contract';
import { createTestEnv, signUp, type TestEnv } from '../helpers.ts';
import { EX, list } from '../trackings/fixtures.ts';

interface Shm {
  apiEndpoint: string;
  addTracking(payload: unknown): Promise<any>;
  sendShipment(payload: unknown): Promise<any>;
  updateShipment(payload: unknown): Promise<any>;
}
const shipmentmentor = createRequire(import.meta.url)('shipmentmentor') as (token: string | undefined, env: string) => Shm;

let env: TestEnv;
let base = '';
let user: Awaited<ReturnType<typeof signUp>>;
beforeAll(async () => {
  env = await createTestEnv();
  await env.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
  user = await signUp(env.app);
});
afterAll(async () => {
  await env?.close();
});

function sdk(token: string | undefined = user.apiKey): Shm {
  const shm = shipmentmentor(token, 'sandbox'); // "production"
  shm.apiEndpoint = base;
  return shm;
}

describe('shipmentmentor SDK 1.0.5 against Shiptrail', () => {
  it('addTracking with the README example resolves with the payload', async () => {
    // The README's example, with a real (sandbox) number in place of "Your UPS USPS OR FedEx tracking NUmber".
    const payload = {
      tid: EX.ups.delivered,
      title: 'Your product name',
      courier: null,
      orderId: '12345',
      customer: 'FirstName LastName',
      notify: {
        email: 'customer@example.com',
        phone: '+8188087449',
      },
      note: null,
    };
    const response = await sdk().addTracking(payload);
    expect(response).toMatchObject({
      tid: EX.ups.delivered,
      courier: 'ups',
      title: 'Your product name',
      orderId: '12345',
      customer: 'FirstName LastName',
      notify: { email: 'customer@example.com', phone: '(818) 808-7449' },
      note: '',
      status: 'Pending',
    });
    const stored = await list(env, user.apiKey);
    expect(stored.body.payload.map((t: { tid: string }) => t.tid)).toContain(EX.ups.delivered);
  });

  it('addTracking with the README payload description (orderId "1234", note null)', async () => {
    const response = await sdk().addTracking({
      tid: EX.fedex.delivered,
      title: 'Your product name',
      courier: null,
      orderId: '1234',
      customer: 'FirstName LastName',
      notify: { email: 'customer@example.com', phone: '+8218001111' },
      note: null,
    });
    expect(response).toMatchObject({ tid: EX.fedex.delivered, courier: 'fedex', orderId: '1234', notify: { phone: '(821) 800-1111' } });
  });

  it('fields left out are sent as null by the SDK and accepted', async () => {
    // The SDK's schema fills every missing optional field with null (ajv useDefaults) before sending.
    const response = await sdk().addTracking({ tid: EX.canadapost.delivered, courier: 'canadapost', notify: {} });
    expect(response).toMatchObject({
      tid: EX.canadapost.delivered,
      courier: 'canadapost',
      title: '',
      orderId: '',
      customer: '',
      note: '',
      notify: { email: '', phone: '' },
    });
  });

  it("a failing call rejects with the server's message string", async () => {
    const again = {
      tid: EX.ups.delivered,
      title: null,
      courier: null,
      orderId: null,
      customer: null,
      notify: { email: null, phone: null },
      note: null,
    };
    await expect(sdk().addTracking(again)).rejects.toBe(`You are already tracking ${EX.ups.delivered}`);
    await expect(sdk().addTracking({ ...again, tid: EX.usps.delivered, notify: { email: null, phone: '555' } })).rejects.toBe(
      MSG.phoneInvalid,
    );
    await expect(sdk().addTracking({ ...again, tid: 'NOTANUMBER12' })).rejects.toBe(
      'We could not recognise this tracking number. Choose the courier.',
    );
  });

  it('a wrong API key rejects with the server message, not a transport error', async () => {
    await expect(sdk('wrong-key').addTracking({ tid: EX.usps.delivered, notify: {} })).rejects.toBe(MSG.unauthorized);
  });
});
