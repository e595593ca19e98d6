import type { Queryable } from '../../db/client.ts';
import { clearAlerts, raiseAlert } from '../alerts/alerts.service.ts';

/** A payment alert, raised through the alerts module that owns the table; whether it was raised now. */
export const raisePaymentAlert = (
  db: Queryable,
  userId: string,
  a: { name: string; message: string; level: 'info' | 'warning' | 'danger'; dedupeKey: string },
) => raiseAlert(db, userId, { group: 'payment', ...a });

/** Dismiss the account's open payment alerts whose key starts with `dedupeKeyPrefix`. */
export const clearPaymentAlert = (db: Queryable, userId: string, dedupeKeyPrefix: string) =>
  clearAlerts(db, userId, 'payment', dedupeKeyPrefix);
