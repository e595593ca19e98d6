import { Drawer } from '@mantine/core';
import type { ReactNode } from 'react';
import { Logo } from '../../components/logo';

/**
 * The public pages' mobile menu. It is its own chunk, loaded on the first tap of the burger: a Drawer brings
 * Mantine's modal, scroll-lock and floating-ui code, which no page needs for its first paint.
 */
export default function MobileNavDrawer({ opened, onClose, children }: { opened: boolean; onClose: () => void; children: ReactNode }) {
  return (
    <Drawer opened={opened} onClose={onClose} size="100%" hiddenFrom="md" title={<Logo />} zIndex={300}>
      {children}
    </Drawer>
  );
}
