import { ActionIcon, Avatar, Burger, Group, Indicator, Menu, Tooltip, UnstyledButton } from '@mantine/core';
import type { Profile } from '@shiptrail/contract';
import { IconAlertTriangle, IconBell, IconBook, IconChevronDown, IconHelpCircle, IconLogout, IconUserCircle } from '@tabler/icons-react';
import { Link } from 'react-router';
import { Logo } from '../../components/logo';

/** Who is signed in, as the header and the side bar show it. */
export interface AccountWho {
  profile: Profile | undefined;
  name: string;
  courier: boolean;
  alertCount: number;
}

export function initials(first?: string, last?: string, email?: string) {
  const s = `${first?.[0] ?? ''}${last?.[0] ?? ''}`.trim();
  return (s || email?.[0] || '?').toUpperCase();
}

/** The alerts (with their count) and the notification log: the account owner's, not a courier's. */
function OwnerIcons({ alertCount }: { alertCount: number }) {
  return (
    <>
      <Tooltip label="Alerts">
        <Indicator label={alertCount} size={18} disabled={alertCount === 0} offset={6} color="red">
          <ActionIcon
            component={Link}
            to="/account/alerts"
            variant="subtle"
            color="gray"
            size="lg"
            aria-label={`Alerts (${alertCount})`}
            data-testid="alerts-count"
          >
            <IconAlertTriangle size={20} />
          </ActionIcon>
        </Indicator>
      </Tooltip>
      <Tooltip label="Notification log">
        <ActionIcon
          component={Link}
          to="/account/notifications"
          variant="subtle"
          color="gray"
          size="lg"
          aria-label="Notification log"
          visibleFrom="xs"
        >
          <IconBell size={20} />
        </ActionIcon>
      </Tooltip>
    </>
  );
}

/** The avatar's menu: the account, support, the API documentation (the owner's) and signing out. */
function AccountMenu({
  profile,
  name,
  courier,
  onSignOut,
}: {
  profile: Profile | undefined;
  name: string;
  courier: boolean;
  onSignOut: () => void;
}) {
  return (
    <Menu position="bottom-end" width={220} withinPortal>
      <Menu.Target>
        <UnstyledButton aria-label="Account menu" px={6} py={4} style={{ borderRadius: 8 }}>
          <Group gap={6} wrap="nowrap">
            <Avatar size={30} radius="xl" color="initials" name={name} src={profile?.image || undefined}>
              {initials(profile?.firstName, profile?.lastName, profile?.email)}
            </Avatar>
            <IconChevronDown size={14} />
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{profile?.email}</Menu.Label>
        <Menu.Item component={Link} to={courier ? '/account/me' : '/account/profile/settings'} leftSection={<IconUserCircle size={16} />}>
          My Account
        </Menu.Item>
        {!courier && (
          <Menu.Item component={Link} to="/account/notifications" leftSection={<IconBell size={16} />}>
            Notification log
          </Menu.Item>
        )}
        <Menu.Item component={Link} to="/account/support" leftSection={<IconHelpCircle size={16} />}>
          Support
        </Menu.Item>
        {!courier && (
          <Menu.Item component={Link} to="/developers" leftSection={<IconBook size={16} />}>
            API documentation
          </Menu.Item>
        )}
        <Menu.Divider />
        <Menu.Item color="red" leftSection={<IconLogout size={16} />} onClick={onSignOut}>
          Sign out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

/** The signed-in pages' top bar: the menu button on a phone, the logo, the icons and the account menu. */
export function AccountHeader({
  who: { profile, name, courier, alertCount },
  opened,
  onToggle,
  onSignOut,
}: {
  who: AccountWho;
  opened: boolean;
  onToggle: () => void;
  onSignOut: () => void;
}) {
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap">
      <Group gap="sm" wrap="nowrap">
        <Burger opened={opened} onClick={onToggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
        <UnstyledButton component={Link} to="/account/dashboard" aria-label="Shiptrail dashboard">
          <Logo size={28} />
        </UnstyledButton>
      </Group>
      <Group gap={4} wrap="nowrap">
        {/* Alerts and the notification log are the account owner's. */}
        {!courier && <OwnerIcons alertCount={alertCount} />}
        <Tooltip label="Support">
          <ActionIcon component={Link} to="/account/support" variant="subtle" color="gray" size="lg" aria-label="Support" visibleFrom="xs">
            <IconHelpCircle size={20} />
          </ActionIcon>
        </Tooltip>
        <AccountMenu profile={profile} name={name} courier={courier} onSignOut={onSignOut} />
      </Group>
    </Group>
  );
}
