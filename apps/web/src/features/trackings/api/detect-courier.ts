import { queryOptions, useQuery } from '@tanstack/react-query';
import { requestPayload } from '../../../lib/api-client';

export interface DetectedCourier {
  courier: string;
  name: string;
  checkDigitValid?: boolean;
}

export const detectCourier = (tid: string, signal?: AbortSignal) =>
  requestPayload<DetectedCourier[]>('/v1/couriers/detect', { body: { tid }, signal });

export const detectCourierQueryOptions = (tid: string) =>
  queryOptions({
    queryKey: ['couriers', 'detect', tid],
    queryFn: ({ signal }) => detectCourier(tid, signal),
    staleTime: Infinity,
    retry: false,
  });

/** Pass the debounced number; nothing is asked for fewer than 6 characters. */
export const useDetectCourier = (tid: string) =>
  useQuery({ ...detectCourierQueryOptions(tid), enabled: tid.replace(/\s/g, '').length >= 6 });
