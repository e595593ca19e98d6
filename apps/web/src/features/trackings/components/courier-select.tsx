import { Badge, Group, Select, type SelectProps } from '@mantine/core';

export interface CourierOption {
  value: string;
  label: string;
  /** The carrier is served by the built-in sandbox (no credentials configured on the server). */
  sandbox?: boolean;
}

/** The courier picker of the add and edit forms: each carrier, flagged when it runs in sandbox mode. */
export function CourierSelect({ data, ...props }: Omit<SelectProps, 'data' | 'renderOption'> & { data: CourierOption[] }) {
  return (
    <Select
      label="Courier"
      data={data}
      allowDeselect={false}
      renderOption={({ option }) => (
        <Group justify="space-between" w="100%" wrap="nowrap">
          <span>{option.label}</span>
          {(option as CourierOption).sandbox && (
            <Badge size="xs" variant="light" color="gray">
              sandbox
            </Badge>
          )}
        </Group>
      )}
      {...props}
    />
  );
}
