import { notifications } from '@mantine/notifications';
import { ApiError } from './api-client';

// Toasts of spec §8: a 'success' reply shows the server message as a success toast; anything else an error toast.
export function toastSuccess(message: string, title?: string) {
  notifications.show({ color: 'teal', title, message, autoClose: 4000 });
}

export function toastError(error: unknown, fallback = 'Error') {
  const message = error instanceof ApiError || error instanceof Error ? error.message || fallback : fallback;
  notifications.show({ color: 'red', title: 'Something went wrong', message, autoClose: 6000 });
}

/** Puts server field errors (payload.errors) onto a @mantine/form. */
export function applyServerErrors(form: { setErrors: (e: Record<string, string>) => void }, error: unknown) {
  if (error instanceof ApiError && Object.keys(error.errors).length) form.setErrors(error.errors);
}
