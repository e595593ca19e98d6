import { AppShell, Box } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { courierMayOpen } from '../../config/account-nav';
import { useUserInfo } from '../../lib/user-info';
import { useLiveUpdates } from '../../lib/live';
import { logout } from '../../lib/logout';
import { endSession } from '../../lib/start-session';
import { toastSuccess } from '../../lib/notify';
import { MSG } from '@shiptrail/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { useOutbox, useOutboxSender } from '../../features/shipments/api/outbox';
import { SignOutWaiting } from '../../features/shipments/components/sign-out-waiting';
import { shipmentsKey } from '../../features/shipments/api/get-shipments';
import { AccountHeader } from './account-header';
import { AccountNavbar } from './account-navbar';

/**
 * A courier's phone sends what it kept while offline on start and whenever the signal is back (decision 120),
 * and fetches the toasts' code while there is signal, so the service worker has it when the phone has none.
 */
function useCourierPhone(courierUid: string | undefined) {
  const qc = useQueryClient();
  const refetchShipments = useCallback(() => void qc.invalidateQueries({ queryKey: shipmentsKey }), [qc]);
  useOutboxSender(courierUid, refetchShipments);
  const courier = courierUid !== undefined;
  useEffect(() => {
    if (courier) void import('../notifications-host');
  }, [courier]);
}

/** Signing out; while the phone still holds a courier's actions it asks first (decision 138). */
function useSignOut(courierUid: string | undefined) {
  const navigate = useNavigate();
  const { waiting } = useOutbox(courierUid);
  const [askSignOut, setAskSignOut] = useState(false);
  const wantSignOut = () => (waiting.length > 0 ? setAskSignOut(true) : void signOut());

  async function signOut() {
    setAskSignOut(false);
    await logout();
    endSession();
    toastSuccess(MSG.signedOut);
    navigate('/', { replace: true });
  }
  return { waiting, asking: askSignOut && waiting.length > 0, stay: () => setAskSignOut(false), signOut, wantSignOut };
}

export default function AccountLayout() {
  const [opened, { toggle, close }] = useDisclosure(false);
  const { pathname } = useLocation();
  const { data } = useUserInfo();
  // Every signed-in page follows the account's events: tables, panels and the balance update in place.
  useLiveUpdates();
  const profile = data?.profile;
  const alertCount = (data?.alerts.general.length ?? 0) + (data?.alerts.payment.length ?? 0);
  const name = profile ? [profile.firstName, profile.lastName].filter(Boolean).join(' ') || profile.email : '';

  const courier = profile?.role === 'courier';
  const courierUid = courier ? profile?.uid : undefined;
  useCourierPhone(courierUid);
  const out = useSignOut(courierUid);
  const who = { profile, name, courier, alertCount };

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
        <AccountHeader who={who} opened={opened} onToggle={toggle} onSignOut={out.wantSignOut} />
      </AppShell.Header>

      <AppShell.Navbar p="md" aria-label="Account navigation">
        <AccountNavbar who={who} pathname={pathname} onNavigate={close} onSignOut={out.wantSignOut} />
      </AppShell.Navbar>

      <AppShell.Main id="account-main">
        <Box maw={1400} mx="auto">
          <Outlet />
        </Box>
      </AppShell.Main>
      {out.asking && (
        <SignOutWaiting count={out.waiting.length} email={profile?.email ?? ''} onStay={out.stay} onSignOut={() => void out.signOut()} />
      )}
    </AppShell>
  );
}
