import { useMutation, type UseMutationOptions } from '@tanstack/react-query';
import type { Envelope } from '@shiptrail/contract';
import { toastError, toastSuccess } from './notify';

type Opts<TVars, TPayload> = Omit<UseMutationOptions<Envelope<TPayload>, Error, TVars>, 'mutationFn'> & {
  /** Show the server message as a toast (spec §8). Landing and contact forms use a status box instead. */
  toast?: boolean;
};

/** useMutation over a /v1 call that toasts the server's message on success and on failure. */
export function useApiMutation<TVars, TPayload>(
  fn: (vars: TVars) => Promise<Envelope<TPayload>>,
  { toast = true, onSuccess, onError, ...rest }: Opts<TVars, TPayload> = {},
) {
  return useMutation<Envelope<TPayload>, Error, TVars>({
    mutationFn: fn,
    ...rest,
    onSuccess: (data, vars, ctx, meta) => {
      if (toast && data.message) toastSuccess(data.message);
      return onSuccess?.(data, vars, ctx, meta);
    },
    onError: (err, vars, ctx, meta) => {
      if (toast) toastError(err);
      return onError?.(err, vars, ctx, meta);
    },
  });
}
