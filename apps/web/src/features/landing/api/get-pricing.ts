import { queryOptions, useQuery } from '@tanstack/react-query';
import { AUTO_RECHARGE, PRICING } from '@shiptrail/contract';
import { requestPayload } from '../../../lib/api-client';

// Not the contract's centsToDollars: importing common.ts would pull zod into the landing page's first load.
const centsToDollars = (cents: number) => cents / 100;

export interface Pricing {
  currency: string;
  signupBonus: number;
  perTracking: number;
  perShipment: number;
  perSms: number;
  referralReward: number;
  autoRecharge: { quickAmounts: number[]; defaultAmount: number; defaultMinimum: number };
}

/** Shown until the server answers (and if it cannot): the same constants the server uses (product rules §9). */
export const FALLBACK_PRICING: Pricing = {
  currency: PRICING.currency,
  signupBonus: centsToDollars(PRICING.signupBonusCents),
  perTracking: centsToDollars(PRICING.trackingCents),
  perShipment: centsToDollars(PRICING.shipmentCents),
  perSms: centsToDollars(PRICING.smsCents),
  referralReward: centsToDollars(PRICING.referralRewardCents),
  autoRecharge: { ...AUTO_RECHARGE, quickAmounts: [...AUTO_RECHARGE.quickAmounts] },
};

export const getPricing = () => requestPayload<Pricing>('/v1/info/pricing', { auth: false });

export const pricingQueryOptions = () => queryOptions({ queryKey: ['pricing'], queryFn: getPricing, staleTime: 5 * 60_000 });

export function usePricing() {
  const q = useQuery(pricingQueryOptions());
  return { ...q, pricing: q.data ?? FALLBACK_PRICING };
}
