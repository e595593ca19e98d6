import { Alert } from '@mantine/core';
import { IconAlertCircle, IconCircleCheck } from '@tabler/icons-react';

export interface FormStatus {
  status: 'success' | 'fail';
  message: string;
}

/**
 * The status-coloured box that landing and contact forms show instead of a toast (product rules §8). `titles` name the
 * outcome for a person ("Signed in", "Could not sign in"); the server's message is the text below.
 */
export function StatusBox({ value, titles }: { value: FormStatus | null; titles?: { success?: string; fail?: string } }) {
  if (!value) return null;
  const ok = value.status === 'success';
  return (
    <Alert
      role={ok ? 'status' : 'alert'}
      color={ok ? 'teal' : 'red'}
      variant="light"
      icon={ok ? <IconCircleCheck size={18} /> : <IconAlertCircle size={18} />}
      data-testid="status-box"
      title={ok ? titles?.success : titles?.fail}
    >
      {value.message}
    </Alert>
  );
}
