// The recipient sees the courier coming (issue 31; decisions 128 and 129). A courier's position, at most every
// POSITION_SHARE_EVERY_MS, goes to the public pages of the shipments they have out for delivery, and may make
// the "about N stops / M minutes away" and "arriving now" news, each once per shipment.
import type { ApproachTrigger } from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/client.ts';
import type { UserRow } from '../accounts/accounts.service.ts';
import { publishLive } from '../live/live.service.ts';
import { addToTrail, lastPositionOf, setPosition } from '../members/members.service.ts';
import { approachOf, fanOutStatusEvent, type StoredSettings } from '../notifications/notifications.service.ts';
import { courierPlanToday, haversineKm } from '../planning/plan-window.service.ts';
import * as repo from './shipments.repository.ts';

/** The most shipments one position is shared with (a courier's day is far fewer; the bus message stays small). */
export const APPROACH_MAX_STOPS = 200;

/**
 * A courier reports where they are (POST /v1/user/general/position, or a checkpoint with coordinates), taken at
 * `takenAt` (a fix or checkpoint sent late from the phone's outbox); only a fresh one is shared (decision 128).
 */
export async function reportPosition(ctx: AppContext, user: UserRow, lat: number, lng: number, takenAt?: Date): Promise<void> {
  await addToTrail(ctx, user, [{ lat, lng, takenAt }]);
  const stored = await setPosition(ctx, user, lat, lng, takenAt);
  if (!stored.shared || !user.companyId) return;
  await shareApproach(ctx, user, { lat, lng, at: stored.at });
}

/**
 * The positions a phone kept without signal, sent together (decision 149), in `db` (the batch's transaction): each
 * joins the trail once, and the newest by the time it was taken is the last position unless a newer one is stored.
 * `share` goes to recipients afterwards (after the transaction): only a fresh newest fix is shared (decision 128).
 */
export async function reportTrail(
  ctx: AppContext,
  user: UserRow,
  fixes: Array<{ lat: number; lng: number; takenAt: Date }>,
  db: Queryable = ctx.db,
): Promise<{ added: number; last: { lat: number; lng: number; takenAt: string } | null; share: () => Promise<void> }> {
  const { added, newest } = await addToTrail(ctx, user, fixes, db);
  let share = async () => {};
  if (newest) {
    const stored = await setPosition(ctx, user, newest.lat, newest.lng, newest.takenAt, db);
    if (stored.shared && user.companyId) share = () => shareApproach(ctx, user, { lat: newest.lat, lng: newest.lng, at: stored.at });
  }
  return { added, last: await lastPositionOf(ctx, user, db), share };
}

/** "about 3 stops / 25 minutes away", "heading to you next". */
export function approachWords(stopsAway: number, minutesAway: number | null): string {
  if (stopsAway <= 1)
    return minutesAway != null
      ? `Your courier is heading to you next, about ${minutesAway} minutes away`
      : 'Your courier is heading to you next';
  return `Your courier is about ${stopsAway} stops${minutesAway != null ? ` / ${minutesAway} minutes` : ''} away`;
}
export const ARRIVING_WORDS = 'Your courier is arriving now';

const coords = (a: unknown): { lat: number; long: number } | null => {
  const o = a && typeof a === 'object' ? (a as Record<string, unknown>) : {};
  return typeof o.lat === 'number' && typeof o.long === 'number' && Number.isFinite(o.lat) && Number.isFinite(o.long)
    ? { lat: o.lat, long: o.long }
    : null;
};

async function shareApproach(ctx: AppContext, courier: UserRow, fix: { lat: number; lng: number; at: Date }): Promise<void> {
  const company = await repo.findUserById(ctx.db, courier.companyId!);
  if (!company) return;
  const now = ctx.now();
  const out = await repo.outForDelivery(ctx.db, courier.id, APPROACH_MAX_STOPS);
  if (out.length === 0) return;
  // The order of the remaining stops: today's plan where there is one, then the rest oldest first.
  let plan = new Map<string, { position: number; eta: Date }>();
  try {
    plan = await courierPlanToday(ctx.db, company.id, courier.id, now, company.timeZone || 'UTC');
  } catch (err) {
    ctx.log.warn({ err, companyId: company.id }, 'approach: could not read the plan of the day');
  }
  const ordered = out
    .map((s, i) => ({ s, i, p: plan.get(s.id) }))
    .sort((a, b) => (a.p?.position ?? Infinity) - (b.p?.position ?? Infinity) || a.i - b.i);

  await publishLive(ctx.db, {
    kind: 'courier',
    accountId: company.id,
    courierId: courier.id,
    tids: ordered.map((o) => o.s.tid),
    lat: fix.lat,
    lng: fix.lng,
    at: fix.at.toISOString(),
  });

  const settings = approachOf(company.settings as StoredSettings);
  const seen = await repo.approachEventsOf(
    ctx.db,
    ordered.map((o) => o.s.id),
  );
  for (const [index, { s, p }] of ordered.entries()) {
    const has = (k: ApproachTrigger) => seen.has(`${s.id} ${k}`);
    if (has('CourierArriving')) continue;
    const dest = coords(s.destination);
    const meters = dest ? Math.round(haversineKm({ lat: fix.lat, long: fix.lng }, dest) * 1000) : null;
    if (meters != null && meters <= settings.meters) {
      await record(ctx, s, 'CourierArriving', { message: ARRIVING_WORDS, meters, stopsAway: index + 1, minutesAway: 0 });
      continue;
    }
    const stopsAway = index + 1;
    if (has('CourierNear') || stopsAway > settings.stops) continue;
    const minutesAway = p ? Math.max(1, Math.round((p.eta.getTime() - now.getTime()) / 60_000)) : null;
    await record(ctx, s, 'CourierNear', { message: approachWords(stopsAway, minutesAway), meters, stopsAway, minutesAway });
  }
}

async function record(
  ctx: AppContext,
  s: repo.ShipmentRow,
  kind: ApproachTrigger,
  facts: { message: string; meters: number | null; stopsAway: number; minutesAway: number | null },
): Promise<void> {
  const at = ctx.now();
  await ctx.db.transaction(async (tx) => {
    const eventId = await repo.insertApproachEvent(tx, {
      shipmentId: s.id,
      userId: s.companyId,
      fromStatus: s.status,
      toStatus: kind,
      checkpoint: { status: kind, location: '', time: at.toISOString(), ...facts },
      createdAt: at,
    });
    if (eventId) await fanOutStatusEvent(tx, ctx, eventId);
  });
}
