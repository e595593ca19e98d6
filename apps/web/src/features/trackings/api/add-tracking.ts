import type { AddTrackingRequest, AddTrackingResponse } from '@shiptrail/contract';
import { userInfoKey } from '../../../lib/user-info';
import { useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { trackingsKey } from './get-trackings';

export const addTracking = (body: AddTrackingRequest) => request<AddTrackingResponse>('/v1/trackings/add', { body });

export function useAddTracking() {
  const qc = useQueryClient();
  return useApiMutation(addTracking, {
    toast: false,
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: trackingsKey });
      void qc.invalidateQueries({ queryKey: userInfoKey });
    },
  });
}
