import { Table } from '@mantine/core';

/** A column's heading: its words, or its words with an alignment (figures read right-aligned). */
export type ColumnHead = string | { label: string; ta: 'right' | 'center' };

/**
 * A table's heading row: the columns' names, then, when `actionsWidth` is given, a column that width for the row's
 * buttons, named "Actions" for screen readers only.
 */
export function TableHead({ columns, actionsWidth }: { columns: ColumnHead[]; actionsWidth?: number }) {
  return (
    <Table.Thead>
      <Table.Tr>
        {columns.map((c) =>
          typeof c === 'string' ? (
            <Table.Th key={c}>{c}</Table.Th>
          ) : (
            <Table.Th key={c.label} ta={c.ta}>
              {c.label}
            </Table.Th>
          ),
        )}
        {actionsWidth === undefined ? null : (
          <Table.Th w={actionsWidth}>
            <span style={{ position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)' }}>Actions</span>
          </Table.Th>
        )}
      </Table.Tr>
    </Table.Thead>
  );
}
