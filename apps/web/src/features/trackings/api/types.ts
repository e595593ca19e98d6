import type { Checkpoint } from '../../../components/checkpoint-timeline';

/** A tracking as GET /v1/trackings/get returns it (the contract has no tracking schema yet). */
export interface Tracking {
  tid: string;
  uid?: string;
  title?: string | null;
  courier?: string | null;
  orderId?: string | null;
  customer?: string | null;
  notify?: { email?: string | null; phone?: string | null } | null;
  note?: string | null;
  origin?: string | null;
  destination?: string | null;
  status?: string | null;
  expected?: string | null;
  lastCheckPoint?: string | Checkpoint | null;
  checkpoints?: Checkpoint[] | null;
  createdAt?: string | null;
  updatedAt?: string | null;
}

export interface TrackingFilters {
  status: string[];
  courier: string[];
}

export function lastCheckPointText(t: Tracking): string {
  const c = t.lastCheckPoint;
  if (!c) {
    const last = [...(t.checkpoints ?? [])].sort((a, b) => String(b.time ?? '').localeCompare(String(a.time ?? '')))[0];
    return last ? [last.message, last.location].filter(Boolean).join(' · ') : '';
  }
  if (typeof c === 'string') return c;
  return [c.message, c.location].filter(Boolean).join(' · ');
}
