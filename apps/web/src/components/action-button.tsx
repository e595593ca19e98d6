import { Button, type ButtonProps } from '@mantine/core';
import type { Icon } from '@tabler/icons-react';
import type { ComponentPropsWithoutRef } from 'react';

type Props = Omit<ButtonProps, 'size' | 'variant' | 'leftSection'> &
  Omit<ComponentPropsWithoutRef<'button'>, keyof ButtonProps | 'color'> & { icon: Icon };

/**
 * An action of a list's row or a details panel (Edit, Resend, Mark delivered, Delete…): a small light button with its
 * icon, the same size and look wherever a row or a drawer offers one; `color="red"` for one that removes.
 */
export function ActionButton({ icon: ActionIcon, ...props }: Props) {
  return <Button size="xs" variant="light" leftSection={<ActionIcon size={14} />} {...props} />;
}
