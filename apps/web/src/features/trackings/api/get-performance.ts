import { useQuery } from '@tanstack/react-query';
import type { Performance } from '@shiptrail/contract';
import { requestPayload } from '../../../lib/api-client';

export const getPerformance = (days: number) => requestPayload<Performance>(`/v1/trackings/performance?days=${days}`);

export function usePerformance(days: number) {
  return useQuery({ queryKey: ['trackings', 'performance', days], queryFn: () => getPerformance(days) });
}
