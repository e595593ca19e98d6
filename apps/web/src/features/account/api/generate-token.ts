import { useQueryClient } from '@tanstack/react-query';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { userInfoKey } from '../../../lib/user-info';

export const generateToken = () => request<{ token: string }>('/v1/user/general/generatenewtoken', { method: 'POST', body: {} });

export function useGenerateToken() {
  const qc = useQueryClient();
  return useApiMutation(generateToken, {
    titles: { success: 'New API key', error: 'Could not create a new API key' },
    onSuccess: () => qc.invalidateQueries({ queryKey: userInfoKey }),
  });
}
