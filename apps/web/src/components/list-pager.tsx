import { Button, Group, Text } from '@mantine/core';
import { IconChevronLeft, IconChevronRight } from '@tabler/icons-react';
import type { KeysetPaging } from './keyset-paging';

/**
 * Under a keyset-paged list (product rules §4): the page number, how many rows on it (and how many ticked), Prev
 * from the second page on, and Next only when the page is full (to the page after this one's last row).
 */
export function ListPager({
  paging,
  rows,
  noun,
  picked = 0,
}: {
  paging: KeysetPaging;
  rows: ReadonlyArray<{ tid: string }>;
  noun: [one: string, many: string];
  picked?: number;
}) {
  const { page } = paging;
  const count = rows.length;
  const last = rows[count - 1];
  return (
    <Group justify="space-between" mt="md">
      <Text size="sm" c="dimmed" data-testid="page-info">
        Page {page} · {count} {count === 1 ? noun[0] : noun[1]}
        {picked > 0 && ` · ${picked} selected`}
      </Text>
      <Group gap="xs">
        {page > 1 && (
          <Button variant="default" leftSection={<IconChevronLeft size={16} />} onClick={paging.prev}>
            Prev
          </Button>
        )}
        {last && count >= paging.pageSize && (
          <Button variant="default" rightSection={<IconChevronRight size={16} />} onClick={() => paging.next(last.tid)}>
            Next
          </Button>
        )}
      </Group>
    </Group>
  );
}
