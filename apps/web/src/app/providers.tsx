import { useEffect, useMemo, type ReactNode } from 'react';
import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
import { queryClient } from '../lib/query-client';
import { buildTheme, rememberTheme, rememberedTheme, themeDef } from '../config/themes';
import { useUserInfo } from '../lib/user-info';

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
      <Notifications position="top-right" zIndex={1000} limit={4} />
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
