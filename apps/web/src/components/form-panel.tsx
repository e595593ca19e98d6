import { Button, Group, Paper } from '@mantine/core';
import type { FormEventHandler, ReactNode } from 'react';

/**
 * A form on a panel of its own (a settings form, Invite a friend, Support): its fields, then its one submit button,
 * at the right (`align="end"`) or the left. The button shows the request on its way and is off while it is, and
 * while `blocked` (values that cannot be sent, or nothing changed). `after` goes on the panel below the form.
 */
export function FormPanel(props: {
  label: string;
  onSubmit: FormEventHandler<HTMLFormElement>;
  busy: boolean;
  blocked?: boolean;
  submit: string;
  icon?: ReactNode;
  align: 'start' | 'end';
  children: ReactNode;
  after?: ReactNode;
}) {
  return (
    <Paper p="lg">
      <form noValidate aria-label={props.label} onSubmit={props.onSubmit}>
        {props.children}
        <Group justify={props.align === 'end' ? 'flex-end' : 'flex-start'} mt="md">
          <Button type="submit" leftSection={props.icon} loading={props.busy} disabled={props.blocked || props.busy}>
            {props.submit}
          </Button>
        </Group>
      </form>
      {props.after}
    </Paper>
  );
}
