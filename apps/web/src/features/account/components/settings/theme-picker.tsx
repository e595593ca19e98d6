import { Box, Group, Paper, SimpleGrid, Text, ThemeIcon, UnstyledButton } from '@mantine/core';
import type { ThemeId, UserInfo } from '@shiptrail/contract';
import { IconCheck } from '@tabler/icons-react';
import { useUpdateUser } from '../../api/update-user';
import { THEMES, rememberTheme } from '../../../../config/themes';

export function ThemePicker({ info }: { info: UserInfo }) {
  const update = useUpdateUser();
  const current = info.settings.themeid;
  const pick = (id: ThemeId) => {
    if (id === current || update.isPending) return;
    rememberTheme(id);
    update.mutate({ settings: { themeid: id } });
  };
  return (
    <Paper p="lg">
      <Text size="sm" c="dimmed" mb="md">
        Pick the colours of your dashboard. The theme follows your account to every device.
      </Text>
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="md" role="radiogroup" aria-label="Theme">
        {THEMES.map((t) => {
          const active = t.id === current;
          return (
            <UnstyledButton
              key={t.id}
              role="radio"
              aria-checked={active}
              aria-label={`Theme ${t.id}: ${t.name}`}
              onClick={() => pick(t.id)}
              data-testid={`theme-${t.id}`}
              style={{
                borderRadius: 12,
                border: `2px solid ${active ? t.swatch[0] : 'var(--mantine-color-gray-3)'}`,
                padding: 10,
              }}
            >
              <Box
                h={56}
                style={{
                  borderRadius: 8,
                  background: `linear-gradient(135deg, ${t.swatch[0]} 0%, ${t.swatch[0]} 55%, ${t.swatch[1]} 100%)`,
                }}
                pos="relative"
              >
                {active && (
                  <ThemeIcon size={22} radius="xl" color="white" c={t.swatch[0]} pos="absolute" top={6} right={6} variant="white">
                    <IconCheck size={14} />
                  </ThemeIcon>
                )}
              </Box>
              <Group justify="space-between" mt={8}>
                <Text size="sm" fw={600}>
                  {t.name}
                </Text>
                <Text size="xs" c="dimmed">
                  {t.id}
                </Text>
              </Group>
            </UnstyledButton>
          );
        })}
      </SimpleGrid>
    </Paper>
  );
}
