import { Button, Group, Text } from '@mantine/core';
import { IconChevronLeft, IconChevronRight } from '@tabler/icons-react';

/**
 * Under a keyset-paged list (product rules §4): the page number, how many rows on it (and how many ticked), Prev
 * from the second page on, and Next only when the page is full.
 */
export function ListPager({
  page,
  count,
  noun,
  picked = 0,
  hasNext,
  onPrev,
  onNext,
}: {
  page: number;
  count: number;
  noun: [one: string, many: string];
  picked?: number;
  hasNext: boolean;
  onPrev: () => void;
  onNext: () => void;
}) {
  return (
    <Group justify="space-between" mt="md">
      <Text size="sm" c="dimmed" data-testid="page-info">
        Page {page} · {count} {count === 1 ? noun[0] : noun[1]}
        {picked > 0 && ` · ${picked} selected`}
      </Text>
      <Group gap="xs">
        {page > 1 && (
          <Button variant="default" leftSection={<IconChevronLeft size={16} />} onClick={onPrev}>
            Prev
          </Button>
        )}
        {hasNext && (
          <Button variant="default" rightSection={<IconChevronRight size={16} />} onClick={onNext}>
            Next
          </Button>
        )}
      </Group>
    </Group>
  );
}
