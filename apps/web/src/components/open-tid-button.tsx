import { Box } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A list row's tracking number as the button that opens its panel (trackings, shipments): a keyboard's way in,
 * since the row's own click is the mouse's. The click stops there, so the row does not open the panel twice.
 */
export function OpenTidButton({ tid, onOpen, block, children }: { tid: string; onOpen: () => void; block?: boolean; children: ReactNode }) {
  return (
    <Box
      component="button"
      onClick={(e: React.MouseEvent) => {
        e.stopPropagation();
        onOpen();
      }}
      style={{ all: 'unset', cursor: 'pointer', ...(block ? { display: 'block' } : {}) }}
      aria-label={`Open ${tid}`}
    >
      {children}
    </Box>
  );
}
