import { describe, expect, it } from 'vitest';
import { MSG } from './messages.ts';
import { centsToDollars, fieldErrors } from './common.ts';
import { pricingSchema, settingsUpdateSchema } from './accounts.ts';
import { AUTO_RECHARGE, PRICING, PRICING_VIEW } from './constants.ts';

const errors = (v: unknown) => {
  const r = settingsUpdateSchema.safeParse(v);
  return r.success ? {} : fieldErrors(r.error);
};

describe('settings update', () => {
  it('normalises channel endpoints: email lower-cased, phone formatted, "false" means none', () => {
    const r = settingsUpdateSchema.parse({
      receiveNotification: {
        email: { triggers: { Delivered: true }, endpoint: 'Ops@Example.com' },
        phone: { triggers: { Delivered: true }, endpoint: '212 555 1234' },
        webhook: { triggers: {}, endpoint: 'false' },
      },
    });
    expect(r.receiveNotification).toEqual({
      email: { triggers: { Delivered: true }, endpoint: 'ops@example.com' },
      phone: { triggers: { Delivered: true }, endpoint: '(212) 555-1234' },
      webhook: { triggers: {}, endpoint: '' },
    });
  });
  it('email and phone may be left empty with a ticked trigger (they default to the profile); a webhook may not', () => {
    expect(
      errors({ receiveNotification: { email: { triggers: { Delivered: true }, endpoint: '' }, phone: { triggers: { Delivered: true } } } }),
    ).toEqual({});
    expect(errors({ receiveNotification: { webhook: { triggers: { Delivered: true }, endpoint: '' } } })).toEqual({
      'receiveNotification.webhook.endpoint': MSG.urlRequired,
    });
    // No ticked trigger: nothing is required.
    expect(errors({ receiveNotification: { webhook: { triggers: { Delivered: false }, endpoint: '' } } })).toEqual({});
  });
  it('refuses a bad endpoint with the field message', () => {
    expect(errors({ receiveNotification: { email: { triggers: {}, endpoint: 'nope' } } })).toEqual({
      'receiveNotification.email.endpoint': MSG.emailInvalid,
    });
    expect(errors({ sendNotification: { phone: { triggers: {}, endpoint: '555' } } })).toEqual({
      'sendNotification.phone.endpoint': MSG.phoneNumberInvalid,
    });
    expect(errors({ receiveNotification: { webhook: { triggers: { InTransit: true }, endpoint: 'ftp://example.com/x' } } })).toEqual({
      'receiveNotification.webhook.endpoint': MSG.urlInvalid,
    });
  });
  it('refuses an unknown theme and a non-boolean trigger', () => {
    expect(errors({ themeid: 'Z' })).toHaveProperty('themeid');
    expect(settingsUpdateSchema.safeParse({ receiveNotification: { email: { triggers: { Delivered: 'yes' } } } }).success).toBe(false);
  });
});

describe('pricing view', () => {
  it('is the pricing reply: every price in dollars as centsToDollars makes it, and the recharge constants', () => {
    expect(pricingSchema.parse(PRICING_VIEW)).toEqual({
      currency: 'USD',
      signupBonus: centsToDollars(PRICING.signupBonusCents),
      perTracking: centsToDollars(PRICING.trackingCents),
      perShipment: centsToDollars(PRICING.shipmentCents),
      perSms: centsToDollars(PRICING.smsCents),
      referralReward: centsToDollars(PRICING.referralRewardCents),
      autoRecharge: { ...AUTO_RECHARGE, quickAmounts: [...AUTO_RECHARGE.quickAmounts] },
    });
  });
});
