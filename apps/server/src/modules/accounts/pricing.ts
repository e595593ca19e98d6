import { AUTO_RECHARGE, PRICING, centsToDollars } from '@shiptrail/contract';

/** Prices as the API shows them (dollars), built once. */
export const PRICING_VIEW = {
  currency: PRICING.currency,
  signupBonus: centsToDollars(PRICING.signupBonusCents),
  perTracking: centsToDollars(PRICING.trackingCents),
  perShipment: centsToDollars(PRICING.shipmentCents),
  perSms: centsToDollars(PRICING.smsCents),
  referralReward: centsToDollars(PRICING.referralRewardCents),
  autoRecharge: {
    quickAmounts: [...AUTO_RECHARGE.quickAmounts],
    defaultAmount: AUTO_RECHARGE.defaultAmount,
    defaultMinimum: AUTO_RECHARGE.defaultMinimum,
  },
};
