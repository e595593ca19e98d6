import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Envelope, PaymentAddRequest, PaymentHistoryItem, PaymentInfo, Receipt, UsageRecord } from '@shiptrail/contract';
import { API_TOKEN_HEADER } from '@shiptrail/contract';
import { ApiError, request, requestPayload } from '../../../lib/api-client';
import { getSession } from '../../../lib/session';
import { useApiMutation } from '../../../lib/use-api-mutation';
import { userInfoKey } from '../../../lib/user-info';

export const paymentInfoKey = ['payment-info'] as const;
export const paymentHistoryKey = ['payment-history'] as const;

export const usePaymentInfo = () =>
  useQuery({ queryKey: paymentInfoKey, queryFn: () => requestPayload<PaymentInfo>(`/v1/user/payment/info?v=${Date.now()}`) });
export const usePaymentHistory = () =>
  useQuery({
    queryKey: paymentHistoryKey,
    queryFn: () => requestPayload<PaymentHistoryItem[]>(`/v1/user/payment/history?v=${Date.now()}`),
  });
export const useReceipt = (id: string) =>
  useQuery({ queryKey: ['receipt', id], queryFn: () => requestPayload<Receipt>(`/v1/user/payment/receipt/${encodeURIComponent(id)}`) });
export const useUsage = (starts: string, ends: string) =>
  useQuery({
    queryKey: ['usage', starts, ends],
    queryFn: () => requestPayload<UsageRecord[]>('/v1/user/general/getusage', { method: 'POST', body: { starts, ends } }),
  });

/** After a payment the balance, the history and payment info all change. */
function useRefreshBilling() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: paymentInfoKey });
    void qc.invalidateQueries({ queryKey: paymentHistoryKey });
    void qc.invalidateQueries({ queryKey: userInfoKey });
  };
}

export function useAddCard() {
  const refresh = useRefreshBilling();
  return useApiMutation((body: PaymentAddRequest) => request<PaymentInfo>('/v1/user/payment/add', { body }), {
    titles: { success: 'Card saved', error: 'Could not save the card' },
    onSuccess: refresh,
  });
}

export function useEditAutofill() {
  const refresh = useRefreshBilling();
  return useApiMutation(
    (body: { amountAutoRecharge: number | string; minimumBalanceForAutoRecharge: number | string }) =>
      request<PaymentInfo>('/v1/user/payment/edit', { body }),
    {
      titles: { success: 'Automatic top-up saved', error: 'Could not save the automatic top-up' },
      onSuccess: refresh,
    },
  );
}

export function useAddBalance() {
  const refresh = useRefreshBilling();
  return useApiMutation(
    // One key per click: a retried request (network hiccup) is not charged twice.
    ({ amount, key }: { amount: number | string; key: string }) =>
      fetchEnvelope('/v1/user/general/addbalance', { amount }, { 'idempotency-key': key }),
    { titles: { success: 'Balance added', error: 'Payment failed' }, onSuccess: refresh, onError: refresh },
  );
}

/** request() with extra headers (the shared client sends only the session token). */
async function fetchEnvelope(path: string, body: unknown, extra: Record<string, string>) {
  const session = getSession();
  const res = await fetch(path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(session ? { [API_TOKEN_HEADER]: session.token } : {}),
      ...extra,
    },
    body: JSON.stringify(body),
  }).catch(() => null);
  if (!res) return request<unknown>(path, { body, transportError: 'Payment failed' });
  const env = await res.json();
  if (env.status !== 'success') throw new ApiError(env.message || 'Payment failed', env.code ?? res.status, env);
  return env as Envelope<unknown>;
}

/** Download the server-rendered receipt PDF as invoice.pdf. */
export async function downloadReceiptPdf(id: string) {
  const session = getSession();
  const res = await fetch(`/v1/user/payment/receipt/${encodeURIComponent(id)}/pdf`, {
    headers: session ? { [API_TOKEN_HEADER]: session.token } : {},
  });
  if (!res.ok || !res.headers.get('content-type')?.includes('pdf')) throw new Error('Could not download the receipt');
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = 'invoice.pdf';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
