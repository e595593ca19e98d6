import { Group, Text, useMantineTheme } from '@mantine/core';

export function LogoMark({ size = 30 }: { size?: number }) {
  const theme = useMantineTheme();
  const primary = theme.colors[theme.primaryColor]?.[7] ?? '#364fc7';
  const accentName = (theme.other.accent as string) ?? 'cyan';
  const accent = theme.colors[accentName]?.[4] ?? '#66d9e8';
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" fill={primary} />
      <path d="M8 20c4 0 5-8 9-8s4 4 7 4" fill="none" stroke="#fff" strokeWidth="3" strokeLinecap="round" />
      <circle cx="8" cy="20" r="2.5" fill="#fff" />
      <circle cx="24" cy="16" r="2.5" fill={accent} />
    </svg>
  );
}

export function Logo({ size = 30, inverted = false }: { size?: number; inverted?: boolean }) {
  return (
    <Group gap={8} wrap="nowrap">
      <LogoMark size={size} />
      <Text fw={800} fz="lg" c={inverted ? 'white' : undefined} style={{ letterSpacing: '-0.02em' }}>
        Shiptrail
      </Text>
    </Group>
  );
}
