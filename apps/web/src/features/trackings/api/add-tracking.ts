import { useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { trackingsKey } from './get-trackings';
import type { Tracking } from './types';

export interface AddTrackingBody {
  tid: string;
  courier: string | null;
  title?: string;
  orderId?: string;
  customer?: string;
  notify: { email?: string; phone?: string };
  note?: string;
}

export const addTracking = (body: AddTrackingBody) => request<Tracking>('/v1/trackings/add', { body });

export function useAddTracking() {
  const qc = useQueryClient();
  return useApiMutation(addTracking, {
    toast: false,
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: trackingsKey });
      void qc.invalidateQueries({ queryKey: ['user-info'] });
    },
  });
}
