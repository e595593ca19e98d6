import { queryOptions, useQuery } from '@tanstack/react-query';
import { PRICING_VIEW } from '@shiptrail/contract';
import { requestPayload } from '../../../lib/api-client';

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
export const FALLBACK_PRICING: Pricing = PRICING_VIEW;

export const getPricing = () => requestPayload<Pricing>('/v1/info/pricing', { auth: false });

export const pricingQueryOptions = () => queryOptions({ queryKey: ['pricing'], queryFn: getPricing, staleTime: 5 * 60_000 });

export function usePricing() {
  const q = useQuery(pricingQueryOptions());
  return { ...q, pricing: q.data ?? FALLBACK_PRICING };
}
