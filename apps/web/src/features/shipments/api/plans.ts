import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { CreatePlanRequest, PlanView } from '@shiptrail/contract';
import { ApiError, request, requestPayload } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { shipmentsKey } from './get-shipments';

export const plansKey = ['plans'] as const;

/** The plan of a day, or null when the day has none yet. */
export async function getPlan(date: string, signal?: AbortSignal): Promise<PlanView | null> {
  try {
    return await requestPayload<PlanView>(`/v1/plans/${encodeURIComponent(date)}`, { signal });
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return null;
    throw e;
  }
}

export const usePlan = (date: string, enabled = true) =>
  useQuery({ queryKey: [...plansKey, date], queryFn: ({ signal }) => getPlan(date, signal), enabled: enabled && !!date });

export interface StopChange {
  date: string;
  tid: string;
  locked?: boolean;
  courierEmail?: string;
  position?: number;
}

export const makePlan = (body: CreatePlanRequest) => request<PlanView>('/v1/plans', { body });
export const replan = (date: string) => request<PlanView>(`/v1/plans/${encodeURIComponent(date)}/replan`, { body: {} });
export const changeStop = ({ date, tid, ...body }: StopChange) =>
  request<PlanView>(`/v1/plans/${encodeURIComponent(date)}/stops/${encodeURIComponent(tid)}`, { method: 'PATCH', body });

/** Each call answers the day's plan: it replaces the cached one, and the shipments' couriers may have changed. */
function useStore() {
  const qc = useQueryClient();
  return (plan: PlanView) => {
    qc.setQueryData([...plansKey, plan.date], plan);
    void qc.invalidateQueries({ queryKey: shipmentsKey });
    void qc.invalidateQueries({ queryKey: ['members'] });
  };
}

export function useMakePlan() {
  const store = useStore();
  return useApiMutation(makePlan, {
    titles: { success: 'Planned', error: 'Could not plan the day' },
    onSuccess: (env) => store(env.payload),
  });
}
export function useReplan() {
  const store = useStore();
  return useApiMutation(replan, {
    titles: { success: 'Planned again', error: 'Could not plan again' },
    onSuccess: (env) => store(env.payload),
  });
}
export function useChangeStop() {
  const store = useStore();
  return useApiMutation(changeStop, { toast: false, onSuccess: (env) => store(env.payload) });
}
