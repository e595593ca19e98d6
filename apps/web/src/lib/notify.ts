import { notifications } from '@mantine/notifications';
import { ApiError } from './api-client';

// Toasts of product rules §8: a 'success' reply shows the server message as a success toast; anything else an error toast.
// Each toast gets a title that says what happened ("Saved", "Could not send the invitation"); when the server's
// message says the same thing, it is shown once.
const same = (a: string | undefined, b: string) => !!a && a.trim().toLowerCase() === b.trim().toLowerCase();

export function toastSuccess(message: string, title?: string) {
  notifications.show({
    color: 'teal',
    title: same(title, message) ? undefined : title,
    message: same(title, message) ? title : message,
    autoClose: 4000,
  });
}

/** The title of an error toast when the caller names none. */
export const DEFAULT_ERROR_TITLE = 'That did not work';

export function toastError(error: unknown, title = DEFAULT_ERROR_TITLE, fallback = 'Please try again.') {
  const message = error instanceof ApiError || error instanceof Error ? error.message || fallback : fallback;
  notifications.show({ color: 'red', title: same(title, message) ? undefined : title, message, autoClose: 6000 });
}

// Refusals a form has shown next to its fields: useApiMutation toasts every other refusal, so none is silent.
const shownInForm = new WeakSet<object>();

/** Whether the form that made the call showed this refusal next to its fields (applyServerErrors). */
export const wasShownInForm = (error: unknown) => typeof error === 'object' && error !== null && shownInForm.has(error);

function hasPath(values: unknown, path: string): boolean {
  let v: unknown = values;
  for (const k of path.split('.')) {
    if (v === null || typeof v !== 'object' || !(k in (v as object))) return false;
    v = (v as Record<string, unknown>)[k];
  }
  return true;
}

/**
 * Puts server field errors (payload.errors) onto a @mantine/form. The refusal counts as shown only when every
 * field it names is a field of this form; otherwise (no field errors, or a field the form does not have) the
 * mutation's toast says it, so a refusal never vanishes (issue 26: "no silent form").
 */
export function applyServerErrors(form: { setErrors: (e: Record<string, string>) => void; getValues?: () => unknown }, error: unknown) {
  if (!(error instanceof ApiError)) return;
  const keys = Object.keys(error.errors);
  if (!keys.length) return;
  form.setErrors(error.errors);
  if (form.getValues && keys.every((k) => hasPath(form.getValues!(), k))) shownInForm.add(error);
}

/** True when every field error of `error` names one of `fields`, so the form shows it next to the field. */
export function errorsBelongTo(error: unknown, fields: readonly string[]) {
  if (!(error instanceof ApiError)) return false;
  const keys = Object.keys(error.errors);
  return keys.length > 0 && keys.every((k) => fields.includes(k));
}
