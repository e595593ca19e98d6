import { Button, Group, MultiSelect, Paper, Select } from '@mantine/core';
import { LIMITS, STATUS_LABELS } from '@shiptrail/contract';
import { IconReload } from '@tabler/icons-react';

const PAGE_SIZES = ['10', '25', '50', String(LIMITS.trackingsPerPage)];

type Option = { value: string; label: string };

/** A multi-select filter of the bar: its label, choices and value; the placeholder shows while nothing is chosen. */
export interface ListFilter {
  label: string;
  placeholder: string;
  data: Option[];
  value: string[];
  onChange: (v: string[]) => void;
  width: number;
}

/** The status filter of a list: one choice per status of `statuses`, by its label. */
export function statusFilter<S extends keyof typeof STATUS_LABELS>(
  statuses: readonly S[],
  value: string[],
  onChange: (v: string[]) => void,
): ListFilter {
  return {
    label: 'Status',
    placeholder: 'All statuses',
    data: statuses.map((s) => ({ value: s, label: STATUS_LABELS[s] })),
    value,
    onChange,
    width: 300,
  };
}

/** The courier filter of a list: `couriers` as value and label. */
export function courierFilter(couriers: Option[], value: string[], onChange: (v: string[]) => void): ListFilter {
  return { label: 'Courier', placeholder: 'All couriers', data: couriers, value, onChange, width: 260 };
}

/**
 * The filter bar above a paged list (trackings, shipments): multi-select filters, the page size and Reload.
 * Changing a filter or the page size calls `onPagingReset` too, so the list starts again from its first page.
 */
export function ListFilters(props: {
  filters: ListFilter[];
  pageSize: number;
  onPageSize: (n: number) => void;
  onPagingReset: () => void;
  onReload: () => void;
  reloading: boolean;
}) {
  return (
    <Paper p="md" mb="md">
      <Group align="flex-end" gap="sm">
        {props.filters.map((f) => (
          <MultiSelect
            key={f.label}
            label={f.label}
            placeholder={f.value.length ? undefined : f.placeholder}
            data={f.data}
            value={f.value}
            onChange={(v) => {
              f.onChange(v);
              props.onPagingReset();
            }}
            clearable
            w={{ base: '100%', sm: f.width }}
          />
        ))}
        <Select
          label="Per page"
          data={PAGE_SIZES}
          value={String(props.pageSize)}
          onChange={(v) => {
            props.onPageSize(Number(v ?? LIMITS.trackingsPerPage));
            props.onPagingReset();
          }}
          allowDeselect={false}
          w={100}
        />
        <Button
          variant="light"
          leftSection={<IconReload size={16} />}
          onClick={props.onReload}
          loading={props.reloading}
          ml={{ sm: 'auto' }}
        >
          Reload
        </Button>
      </Group>
    </Paper>
  );
}
