import { lazy, Suspense, useEffect, useMemo, useState, type ComponentType, type ReactNode } from 'react';
import { MantineProvider } from '@mantine/core';
import { useNotifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { queryClient } from '../lib/query-client';
import { buildTheme, rememberTheme, rememberedTheme, themeDef } from '../config/themes';
import { useUserInfo } from '../lib/user-info';

// Without signal its chunk may not load (a courier's phone, decision 120): no toasts then, rather than a blank app.
const NotificationsHost = lazy<ComponentType>(() => import('./notifications-host').catch(() => ({ default: () => null })));

/**
 * Mounts the toasts' container once there is a toast to show: its code (transitions, portals, drag to
 * dismiss) is then loaded, so pages that never show a toast, the landing page first, do not download it.
 */
function LazyNotifications() {
  const { notifications, queue } = useNotifications();
  const [wanted, setWanted] = useState(false);
  if (!wanted && notifications.length + queue.length > 0) setWanted(true);
  return wanted ? (
    <Suspense fallback={null}>
      <NotificationsHost />
    </Suspense>
  ) : null;
}

/** Applies the signed-in user's theme (settings.themeid), remembered locally so reloads do not flash. */
function ThemedApp({ children }: { children: ReactNode }) {
  const info = useUserInfo();
  const themeId = info.data?.settings.themeid ?? rememberedTheme() ?? 'A';
  useEffect(() => {
    if (info.data?.settings.themeid) rememberTheme(info.data.settings.themeid);
    const meta = document.querySelector('meta[name="theme-color"]');
    meta?.setAttribute('content', themeDef(themeId).swatch[0]);
  }, [info.data?.settings.themeid, themeId]);
  const theme = useMemo(() => buildTheme(themeId), [themeId]);
  return (
    <MantineProvider theme={theme} defaultColorScheme="light">
      <LazyNotifications />
      {children}
    </MantineProvider>
  );
}

export function Providers({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <ThemedApp>{children}</ThemedApp>
    </QueryClientProvider>
  );
}
