import { useCallback } from 'react';
import { useMutation, type MutateOptions, type UseMutationOptions } from '@tanstack/react-query';
import type { Envelope } from '@shiptrail/contract';
import { toastError, toastSuccess, wasShownInForm } from './notify';

type Opts<TVars, TPayload> = Omit<UseMutationOptions<Envelope<TPayload>, Error, TVars>, 'mutationFn'> & {
  /** Show the server message as a toast (product rules §8). Landing and contact forms use a status box instead. */
  toast?: boolean;
  /** Toast titles that say what happened, e.g. { success: 'Saved', error: 'Could not save' }. */
  titles?: { success?: string; error?: string };
  /**
   * @deprecated Not needed: a refusal the calling form shows next to its fields (applyServerErrors in the call's
   * onError) is not toasted as well; every other refusal is. Kept so existing callers compile.
   */
  formFields?: readonly string[];
};

/**
 * useMutation over a /v1 call that toasts the server's message on success and on failure. A failure is toasted
 * after the call's own onError ran, unless that onError showed it next to the form's fields (applyServerErrors):
 * so every refusal reaches the person exactly once, on every form (issue 26).
 */
export function useApiMutation<TVars, TPayload>(
  fn: (vars: TVars) => Promise<Envelope<TPayload>>,
  { toast = true, titles, formFields: _formFields, onSuccess, ...rest }: Opts<TVars, TPayload> = {},
) {
  const m = useMutation<Envelope<TPayload>, Error, TVars>({
    mutationFn: fn,
    ...rest,
    onSuccess: (data, vars, ctx, meta) => {
      if (toast && data.message) toastSuccess(data.message, titles?.success);
      return onSuccess?.(data, vars, ctx, meta);
    },
  });
  const { mutate: run } = m;
  const errorTitle = titles?.error;
  const mutate = useCallback(
    (vars: TVars, opts?: MutateOptions<Envelope<TPayload>, Error, TVars>) =>
      run(vars, {
        ...opts,
        onError: (err, v, c, meta) => {
          opts?.onError?.(err, v, c, meta);
          if (toast && !wasShownInForm(err)) toastError(err, errorTitle);
        },
      }),
    [run, toast, errorTitle],
  );
  return { ...m, mutate };
}
