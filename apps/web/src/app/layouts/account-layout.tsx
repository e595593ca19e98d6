import {
  ActionIcon,
  AppShell,
  Avatar,
  Badge,
  Box,
  Burger,
  Group,
  Indicator,
  Menu,
  NavLink as MantineNavLink,
  ScrollArea,
  Stack,
  Text,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconAlertTriangle, IconBell, IconBook, IconChevronDown, IconHelpCircle, IconLogout, IconUserCircle } from '@tabler/icons-react';
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { Logo } from '../../components/logo';
import { accountNav, courierMayOpen } from '../../config/account-nav';
import { useUserInfo } from '../../lib/user-info';
import { useLiveUpdates } from '../../lib/live';
import { logout } from '../../lib/logout';
import { endSession } from '../../lib/start-session';
import { money } from '../../lib/format';
import { toastSuccess } from '../../lib/notify';
import { MSG } from '@shiptrail/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { useOutbox, useOutboxSender } from '../../features/shipments/api/outbox';
import { SignOutWaiting } from '../../features/shipments/components/sign-out-waiting';
import { shipmentsKey } from '../../features/shipments/api/get-shipments';

function initials(first?: string, last?: string, email?: string) {
  const s = `${first?.[0] ?? ''}${last?.[0] ?? ''}`.trim();
  return (s || email?.[0] || '?').toUpperCase();
}

export default function AccountLayout() {
  const [opened, { toggle, close }] = useDisclosure(false);
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const { data } = useUserInfo();
  // Every signed-in page follows the account's events: tables, panels and the balance update in place.
  useLiveUpdates();
  const profile = data?.profile;
  const alertCount = (data?.alerts.general.length ?? 0) + (data?.alerts.payment.length ?? 0);
  const name = profile ? [profile.firstName, profile.lastName].filter(Boolean).join(' ') || profile.email : '';

  const courier = profile?.role === 'courier';
  // A courier's phone sends what it kept while offline on start and whenever the signal is back (decision 120).
  const qc = useQueryClient();
  const refetchShipments = useCallback(() => void qc.invalidateQueries({ queryKey: shipmentsKey }), [qc]);
  useOutboxSender(courier ? profile?.uid : undefined, refetchShipments);
  // The toasts' code too is fetched while there is signal, so the service worker has it when the phone has none.
  useEffect(() => {
    if (courier) void import('../notifications-host');
  }, [courier]);

  // Signing out while the phone still holds a courier's actions asks first (decision 138).
  const { waiting } = useOutbox(courier ? profile?.uid : undefined);
  const [askSignOut, setAskSignOut] = useState(false);
  const wantSignOut = () => (waiting.length > 0 ? setAskSignOut(true) : void signOut());

  async function signOut() {
    setAskSignOut(false);
    await logout();
    endSession();
    toastSuccess(MSG.signedOut);
    navigate('/', { replace: true });
  }

  // A courier who opens one of the owner's pages is taken to their day, which says why (decision 094). The
  // first-run wizard is the owner's too, but a courier never asked for it: no sentence there.
  if (courier && !courierMayOpen(pathname)) {
    return <Navigate to="/account/dashboard" replace state={pathname.startsWith('/account/init') ? null : { ownerOnly: pathname }} />;
  }

  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 260, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding={{ base: 'sm', sm: 'lg' }}
      styles={{ main: { background: 'var(--mantine-color-gray-0)' } }}
    >
      <a href="#account-main" className="skip-link">
        Skip to content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <UnstyledButton component={Link} to="/account/dashboard" aria-label="Shiptrail dashboard">
              <Logo size={28} />
            </UnstyledButton>
          </Group>
          <Group gap={4} wrap="nowrap">
            {/* Alerts and the notification log are the account owner's. */}
            {!courier && (
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
            )}
            <Tooltip label="Support">
              <ActionIcon
                component={Link}
                to="/account/support"
                variant="subtle"
                color="gray"
                size="lg"
                aria-label="Support"
                visibleFrom="xs"
              >
                <IconHelpCircle size={20} />
              </ActionIcon>
            </Tooltip>
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
                <Menu.Item
                  component={Link}
                  to={courier ? '/account/me' : '/account/profile/settings'}
                  leftSection={<IconUserCircle size={16} />}
                >
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
                <Menu.Item color="red" leftSection={<IconLogout size={16} />} onClick={wantSignOut}>
                  Sign out
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>

      <AppShell.Navbar p="md" aria-label="Account navigation">
        <AppShell.Section>
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
                onClick={close}
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
            onClick={wantSignOut}
            style={{ borderRadius: 8 }}
            color="red"
          />
        </AppShell.Section>
      </AppShell.Navbar>

      <AppShell.Main id="account-main">
        <Box maw={1400} mx="auto">
          <Outlet />
        </Box>
      </AppShell.Main>
      {askSignOut && waiting.length > 0 && (
        <SignOutWaiting
          count={waiting.length}
          email={profile?.email ?? ''}
          onStay={() => setAskSignOut(false)}
          onSignOut={() => void signOut()}
        />
      )}
    </AppShell>
  );
}
