import type { UseFormReturnType } from '@mantine/form';
import { IconSend } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { FormPanel } from '../../../components/form-panel';
import { applyServerErrors } from '../../../lib/notify';

interface Sending<T> {
  isPending: boolean;
  mutate: (values: T, on: { onSuccess: () => void; onError: (e: Error) => void }) => void;
}

/**
 * A form that sends a message (Invite a friend, Support): Send is off until the values are valid; once sent the form
 * is cleared for the next one, and a refusal goes under its field.
 */
export function SendFormPanel<T extends Record<string, unknown>>(props: {
  label: string;
  form: UseFormReturnType<T>;
  sending: Sending<T>;
  submit: string;
  children: ReactNode;
}) {
  const { form, sending } = props;
  return (
    <FormPanel
      label={props.label}
      onSubmit={form.onSubmit((v) => sending.mutate(v, { onSuccess: () => form.reset(), onError: (e) => applyServerErrors(form, e) }))}
      busy={sending.isPending}
      blocked={!form.isValid()}
      submit={props.submit}
      icon={<IconSend size={16} />}
      align="start"
    >
      {props.children}
    </FormPanel>
  );
}
