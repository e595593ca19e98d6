import { notifications } from '@mantine/notifications';
import { ApiError } from './api-client';

// Toasts of product rules §8: a 'success' reply shows the server message as a success toast; anything else an error toast.
// Each toast gets a title that says what happened ("Saved", "Could not send the invitation"); when the server's
// message says the same thing, it is shown once.
const same = (a: string | undefined, b: string) => !!a && a.trim().toLowerCase() === b.trim().toLowerCase();

export function toastSuccess(message: string, title?: string) {
  notifications.show({ color: 'teal', title: same(title, message) ? undefined : title, message: same(title, message) ? title : message, autoClose: 4000 });
}

/** The title of an error toast when the caller names none. */
export const DEFAULT_ERROR_TITLE = 'That did not work';

export function toastError(error: unknown, title = DEFAULT_ERROR_TITLE, fallback = 'Please try again.') {
  const message = error instanceof ApiError || error instanceof Error ? error.message || fallback : fallback;
  notifications.show({ color: 'red', title: same(title, message) ? undefined : title, message, autoClose: 6000 });
}

/** Puts server field errors (payload.errors) onto a @mantine/form. */
export function applyServerErrors(form: { setErrors: (e: Record<string, string>) => void }, error: unknown) {
  if (error instanceof ApiError && Object.keys(error.errors).length) form.setErrors(error.errors);
}

/** True when every field error of `error` names one of `fields`, so the form shows it next to the field. */
export function errorsBelongTo(error: unknown, fields: readonly string[]) {
  if (!(error instanceof ApiError)) return false;
  const keys = Object.keys(error.errors);
  return keys.length > 0 && keys.every((k) => fields.includes(k));
}
