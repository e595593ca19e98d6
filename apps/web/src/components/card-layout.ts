import { useMediaQuery } from '@mantine/hooks';

/**
 * Below this width (up to Mantine's md breakpoint, where the sidebar still takes 260 px) a six- or
 * seven-column table would scroll sideways and show two or three columns at a time, so list pages show one
 * card per row instead.
 */
export const CARD_LAYOUT_QUERY = '(max-width: 61.99em)';

/** True when rows should be cards. Read at the first render so a phone never flashes the table. */
export const useCardLayout = () => useMediaQuery(CARD_LAYOUT_QUERY, false, { getInitialValueInEffect: false });
