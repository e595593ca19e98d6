import { useMutation, type UseMutationOptions } from '@tanstack/react-query';
import type { Envelope } from '@shiptrail/contract';
import { errorsBelongTo, toastError, toastSuccess } from './notify';

type Opts<TVars, TPayload> = Omit<UseMutationOptions<Envelope<TPayload>, Error, TVars>, 'mutationFn'> & {
  /** Show the server message as a toast (product rules §8). Landing and contact forms use a status box instead. */
  toast?: boolean;
  /** Toast titles that say what happened, e.g. { success: 'Saved', error: 'Could not save' }. */
  titles?: { success?: string; error?: string };
  /**
   * Fields of the calling form. A failure whose field errors all name these fields is shown next to the
   * fields (applyServerErrors) and not toasted as well, so each error appears once.
   */
  formFields?: readonly string[];
};

/** useMutation over a /v1 call that toasts the server's message on success and on failure. */
export function useApiMutation<TVars, TPayload>(
  fn: (vars: TVars) => Promise<Envelope<TPayload>>,
  { toast = true, titles, formFields, onSuccess, onError, ...rest }: Opts<TVars, TPayload> = {},
) {
  return useMutation<Envelope<TPayload>, Error, TVars>({
    mutationFn: fn,
    ...rest,
    onSuccess: (data, vars, ctx, meta) => {
      if (toast && data.message) toastSuccess(data.message, titles?.success);
      return onSuccess?.(data, vars, ctx, meta);
    },
    onError: (err, vars, ctx, meta) => {
      if (toast && !(formFields && errorsBelongTo(err, formFields))) toastError(err, titles?.error);
      return onError?.(err, vars, ctx, meta);
    },
  });
}
