import { Chip, Group, NumberInput, Stack } from '@mantine/core';
import { AUTO_RECHARGE } from '@shiptrail/contract';

/** A whole-dollar amount with the quick picks 5, 10, 20 and 50. */
export function AmountPicker({
  label,
  value,
  onChange,
  error,
  name,
}: {
  label: string;
  value: number | string;
  onChange: (v: number | string) => void;
  error?: React.ReactNode;
  name: string;
}) {
  return (
    <Stack gap={6}>
      <NumberInput
        label={label}
        name={name}
        prefix="$"
        allowDecimal={false}
        min={0}
        value={value}
        onChange={onChange}
        error={error}
        maw={240}
      />
      <Group gap={6}>
        {AUTO_RECHARGE.quickAmounts.map((q) => (
          <Chip
            key={q}
            size="xs"
            checked={Number(value) === q}
            onChange={() => onChange(q)}
            wrapperProps={{ 'data-testid': `${name}-quick-${q}` }}
          >
            ${q}
          </Chip>
        ))}
      </Group>
    </Stack>
  );
}
