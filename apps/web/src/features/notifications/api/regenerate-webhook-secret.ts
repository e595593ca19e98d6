import { useQueryClient } from '@tanstack/react-query';
import { userInfoKey } from '../../../lib/user-info';
import { request } from '../../../lib/api-client';
import { useApiMutation } from '../../../lib/use-api-mutation';

export const regenerateWebhookSecret = () =>
  request<{ webhookSecret: string; previousSecretValidUntil: string | null }>('/v1/user/webhook/secret/regenerate', {
    method: 'POST',
    body: {},
  });

export function useRegenerateWebhookSecret() {
  const qc = useQueryClient();
  return useApiMutation(regenerateWebhookSecret, {
    titles: { success: 'New signing secret', error: 'Could not create a new secret' },
    onSuccess: () => qc.invalidateQueries({ queryKey: userInfoKey }),
  });
}
