import { Button, Group, MultiSelect, Paper, Select } from '@mantine/core';
import { LIMITS, STATUS_LABELS } from '@shiptrail/contract';
import { IconReload } from '@tabler/icons-react';
import type { KeysetPaging, Reloadable } from './keyset-paging';

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
 * Changing a filter or the page size starts the list again from its first page; Reload fetches the page shown again.
 */
export function ListFilters(props: { filters: ListFilter[]; paging: KeysetPaging; list: Reloadable }) {
  const { paging, list } = props;
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
              paging.reset();
            }}
            clearable
            w={{ base: '100%', sm: f.width }}
          />
        ))}
        <Select
          label="Per page"
          data={PAGE_SIZES}
          value={String(paging.pageSize)}
          onChange={(v) => {
            paging.setPageSize(Number(v ?? LIMITS.trackingsPerPage));
            paging.reset();
          }}
          allowDeselect={false}
          w={100}
        />
        <Button
          variant="light"
          leftSection={<IconReload size={16} />}
          onClick={() => list.refetch()}
          loading={list.isFetching && !list.isLoading}
          ml={{ sm: 'auto' }}
        >
          Reload
        </Button>
      </Group>
    </Paper>
  );
}
