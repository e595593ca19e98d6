import { LIMITS } from '@shiptrail/contract';
import { useState } from 'react';

/**
 * Keyset paging of a list (product rules §4), shared by trackings and shipments: the page size, and a stack of the
 * lastTid values that opened each page (the first page has none).
 */
export function useKeysetPaging() {
  const [pageSize, setPageSize] = useState<number>(LIMITS.trackingsPerPage);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  return {
    pageSize,
    setPageSize,
    /** The lastTid of the page shown: undefined on the first. */
    lastTid: cursors[cursors.length - 1],
    page: cursors.length,
    reset: () => setCursors([undefined]),
    prev: () => setCursors((c) => c.slice(0, -1)),
    /** The page after the one that ends with `lastTid`. */
    next: (lastTid: string) => setCursors((c) => [...c, lastTid]),
  };
}

export type KeysetPaging = ReturnType<typeof useKeysetPaging>;

/** What the filter bar reads of a list's query: its Reload. */
export interface Reloadable {
  refetch: () => unknown;
  isFetching: boolean;
  isLoading: boolean;
}
