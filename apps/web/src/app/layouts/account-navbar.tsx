import { AppShell, Avatar, Badge, Box, Group, NavLink as MantineNavLink, ScrollArea, Stack, Text } from '@mantine/core';
import type { Profile } from '@shiptrail/contract';
import { IconLogout } from '@tabler/icons-react';
import { NavLink } from 'react-router';
import { accountNav } from '../../config/account-nav';
import { money } from '../../lib/format';
import { initials, type AccountWho } from './account-header';

/** Who is signed in: the owner with the balance, a courier as such. */
function WhoCard({ profile, name, courier }: { profile: Profile | undefined; name: string; courier: boolean }) {
  return (
    <Group gap="sm" wrap="nowrap" p="xs" mb="md" style={{ borderRadius: 12, background: 'var(--mantine-primary-color-light)' }}>
      <Avatar size={44} radius="xl" color="initials" name={name} src={profile?.image || undefined}>
        {initials(profile?.firstName, profile?.lastName, profile?.email)}
      </Avatar>
      <Box style={{ minWidth: 0 }}>
        <Text fw={600} size="sm" truncate data-testid="sidebar-name">
          {name || ' '}
        </Text>
        {courier ? (
          <Text size="xs" c="dimmed">
            Courier
          </Text>
        ) : (
          <>
            <Text size="xs" c="dimmed">
              Balance
            </Text>
            <Text fw={700} size="sm" data-testid="sidebar-balance">
              {money(profile?.balance)}
            </Text>
          </>
        )}
      </Box>
    </Group>
  );
}

/** The signed-in pages' side bar: who, the account's pages (the alerts with their count) and signing out. */
export function AccountNavbar({
  who: { profile, name, courier, alertCount },
  pathname,
  onNavigate,
  onSignOut,
}: {
  who: AccountWho;
  pathname: string;
  onNavigate: () => void;
  onSignOut: () => void;
}) {
  return (
    <>
      <AppShell.Section>
        <WhoCard profile={profile} name={name} courier={courier} />
      </AppShell.Section>
      <AppShell.Section grow component={ScrollArea}>
        <Stack gap={2} component="nav">
          {accountNav(profile).map((item) => (
            <MantineNavLink
              key={item.to}
              component={NavLink}
              to={item.to}
              label={item.label}
              leftSection={<item.icon size={18} stroke={1.7} />}
              active={pathname.startsWith(item.to)}
              onClick={onNavigate}
              style={{ borderRadius: 8 }}
              rightSection={
                item.to === '/account/alerts' && alertCount > 0 ? (
                  <Badge size="sm" color="red" circle>
                    {alertCount}
                  </Badge>
                ) : undefined
              }
            />
          ))}
        </Stack>
      </AppShell.Section>
      <AppShell.Section>
        <MantineNavLink
          label="Sign out"
          leftSection={<IconLogout size={18} />}
          onClick={onSignOut}
          style={{ borderRadius: 8 }}
          color="red"
        />
      </AppShell.Section>
    </>
  );
}
