import { useQuery } from '@tanstack/react-query';
import type { ProofView } from '@shiptrail/contract';
import { requestPayload } from '../../../lib/api-client';

/** The images of a proof of delivery are fetched only when its checkpoint is shown. */
export const getProof = (tid: string, checkpointId: number, signal?: AbortSignal) =>
  requestPayload<ProofView>(`/v1/shipment/proof/${encodeURIComponent(tid)}/${checkpointId}`, { signal });

export const useProof = (tid: string, checkpointId: number) =>
  useQuery({
    queryKey: ['shipment-proof', tid, checkpointId],
    queryFn: ({ signal }) => getProof(tid, checkpointId, signal),
    staleTime: Infinity,
  });
