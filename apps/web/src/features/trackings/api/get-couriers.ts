import { queryOptions, useQuery } from '@tanstack/react-query';
import { COURIER_NAMES, COURIER_SLUGS } from '@shiptrail/contract';
import { requestPayload } from '../../../lib/api-client';

export interface CourierInfo {
  courier: string;
  name: string;
  sandbox?: boolean;
}

const FALLBACK: CourierInfo[] = COURIER_SLUGS.map((c) => ({ courier: c, name: COURIER_NAMES[c] }));

export const getCouriers = () => requestPayload<CourierInfo[]>('/v1/couriers');

export const couriersQueryOptions = () => queryOptions({ queryKey: ['couriers', 'list'], queryFn: getCouriers, staleTime: 10 * 60_000 });

export function useCouriers() {
  const q = useQuery(couriersQueryOptions());
  return { ...q, couriers: q.data?.length ? q.data : FALLBACK };
}
