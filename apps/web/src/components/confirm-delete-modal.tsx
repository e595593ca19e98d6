import type { ReactNode } from 'react';
import { Button, Group, Modal } from '@mantine/core';

/**
 * A "Delete …?" confirmation: what goes (`children`), Cancel, and a red Delete that waits while the deletion runs.
 * Open while `item` is set; Delete hands that item to `onDelete`.
 */
export function ConfirmDeleteModal<T>({
  item,
  title,
  busy,
  onCancel,
  onDelete,
  children,
}: {
  item: T | null;
  title: string;
  busy: boolean;
  onCancel: () => void;
  onDelete: (item: T) => void;
  children: ReactNode;
}) {
  return (
    <Modal opened={!!item} onClose={onCancel} title={title} size="sm">
      {children}
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        <Button color="red" loading={busy} onClick={() => item && onDelete(item)}>
          Delete
        </Button>
      </Group>
    </Modal>
  );
}
