import { randomInt, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  cleanBrandUrl,
  cleanText,
  MSG,
  OCCURRED_AT_LIMITS,
  POSITION_FRESH_MS,
  PRICING,
  THEME_PRIMARY_COLORS,
  looksLikeShm,
  normalizeTrackingNumber,
  parcelFields,
  shmCheckDigitValid,
  shmNumber,
  type Brand,
  type CourierDay,
  type ProofView,
  type PublicShipment,
  type ShipmentMarkers,
  type assignShipmentsRequest,
  type shipmentMarkersRequest,
  type unassignShipmentsRequest,
  OPEN_SHIPMENT_STATUSES,
  type ShipmentView,
  type courierDayRequest,
  type createShipmentRequest,
  type editShipmentRequest,
  type listShipmentsRequest,
  type updateShipmentRequest,
} from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import type { Queryable, Tx } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { AppError, badRequest, forbidden, notFound, tooMany } from '../../lib/errors.ts';
import { takeWindow } from '../../lib/attempts.repository.ts';
import type { UserRow } from '../accounts/accounts.service.ts';
import { promisedNotify, type StoredSettings } from '../notifications/notifications.service.ts';
import { charge } from '../billing/billing.service.ts';
import { locateAddress } from '../geo/geo.service.ts';
import { findCourierByEmail } from '../members/members.service.ts';
import { reportPosition } from './approach.ts';

export { reportPosition, reportTrail } from './approach.ts';
import { fanOutStatusEvent } from '../notifications/notifications.service.ts';
import { publishLive } from '../live/live.service.ts';
import { raiseAlert } from '../alerts/alerts.service.ts';
import { prepareProof, type PreparedProof } from './proof.ts';
import { prepareLogo } from './logo.ts';
import { update as updateAccount } from '../accounts/accounts.service.ts';
import * as repo from './shipments.repository.ts';
import { addressView, placeLine, publicShipmentView, shipmentView } from './views.ts';

type CreateInput = z.output<typeof createShipmentRequest>;
type UpdateInput = z.output<typeof updateShipmentRequest>;
type EditInput = z.output<typeof editShipmentRequest>;
type ListInput = z.output<typeof listShipmentsRequest>;

export const COMPANY_ONLY = 'Only company accounts have shipments: switch the account type to company under Settings';
const notFoundShipment = () => notFound(MSG.shipmentNotFound);

const isCompanyOwner = (u: UserRow) => u.role !== 'courier' && u.userType === 'company';
function requireCompanyOwner(u: UserRow) {
  if (u.role === 'courier') throw forbidden('Couriers cannot use this call');
  if (u.userType !== 'company') throw forbidden(COMPANY_ONLY);
}
/** What a caller may see: a company its shipments, a courier the ones assigned to them. A person nothing. */
function scopeOf(u: UserRow): repo.Scope | null {
  if (u.role === 'courier') return u.companyId ? { courierId: u.id } : null;
  return u.userType === 'company' ? { companyId: u.id } : null;
}
const fullName = (u: Pick<UserRow, 'firstName' | 'lastName' | 'email'>) => [u.firstName, u.lastName].filter(Boolean).join(' ') || u.email;

// ------------------------------------------------------------------ views
async function viewsOf(ctx: AppContext, rows: repo.ShipmentRow[], db: Queryable = ctx.db): Promise<ShipmentView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [parcels, cps] = await Promise.all([repo.parcelsFor(db, ids), repo.checkpointsFor(db, ids)]);
  const companyUids = new Map<string, string>();
  const courierUids = new Map<string, string>();
  for (const id of new Set(rows.map((r) => r.companyId))) companyUids.set(id, (await repo.findUserById(db, id))?.uid ?? '');
  for (const id of new Set(rows.map((r) => r.courierId).filter((x): x is string => !!x)))
    courierUids.set(id, (await repo.findUserById(db, id))?.uid ?? '');
  return rows.map((r) =>
    shipmentView(
      r,
      parcels.filter((p) => p.shipmentId === r.id),
      cps.filter((c) => c.shipmentId === r.id),
      companyUids.get(r.companyId) ?? '',
      r.courierId ? (courierUids.get(r.courierId) ?? null) : null,
    ),
  );
}
const viewOf = async (ctx: AppContext, row: repo.ShipmentRow, db: Queryable = ctx.db) => (await viewsOf(ctx, [row], db))[0]!;

const parcelRows = (shipmentId: string, parcels: CreateInput['parcels']): repo.NewParcel[] =>
  parcels.map((p, i) => ({ shipmentId, position: i, ref: p.id ?? '', ...parcelFields(p), metadata: p.metadata }));

/** Store an address with every field, '' or null for what was not given. */
const addressRow = (a: CreateInput['origin']) => ({
  name: a.name ?? '',
  company: a.company ?? '',
  address1: a.address1,
  address2: a.address2 ?? '',
  city: a.city,
  state: a.state ?? '',
  zip: a.zip,
  country: a.country ?? '',
  lat: a.lat ?? null,
  long: a.long ?? null,
  email: a.email ?? '',
  phone: a.phone ?? '',
});

/**
 * Record the status change in the same event table trackings use, and fan its notifications out in the
 * same transaction: the company's receive triggers and, through the destination's email and phone, its
 * customer's send triggers.
 */
async function recordStatusChange(
  tx: Tx,
  ctx: AppContext,
  s: repo.ShipmentRow,
  toStatus: string,
  checkpoint: { status: string; location: string; message: string; time: string },
) {
  if (s.status === toStatus && s.lastCheckPoint) return;
  const eventId = await repo.insertEvent(tx, {
    shipmentId: s.id,
    userId: s.companyId,
    fromStatus: s.lastCheckPoint ? s.status : null,
    toStatus,
    checkpoint,
    createdAt: ctx.now(),
  });
  await fanOutStatusEvent(tx, ctx, eventId);
}

// ------------------------------------------------------------------ create
const CREATE_ATTEMPTS = 5;
/** SHM + 11 random digits + check digit; unique across the platform (the unique index decides). */
const newShmNumber = () => shmNumber(String(randomInt(0, 1e11)).padStart(11, '0'));

/**
 * What a create needs to know before its transaction: the caller may create, who the courier is, and the
 * addresses with coordinates (geocoded here, outside any transaction, since a geocoder may be slow).
 */
export interface CreatePlan {
  member: UserRow | undefined;
  warning?: string;
  origin?: CreateInput['origin'];
  destination?: CreateInput['destination'];
}
export async function planShipment(ctx: AppContext, company: UserRow, input: CreateInput): Promise<CreatePlan> {
  requireCompanyOwner(company);
  // Unassigned (decision 098): nobody yet, assigned later with POST /v1/shipment/assign.
  const member = input.courierEmail ? await findCourierByEmail(ctx, company.id, input.courierEmail) : undefined;
  const warning =
    member || !input.courierEmail
      ? undefined
      : `${input.courierEmail} is not one of your couriers, so nobody is assigned: add them under Couriers and edit the shipment to assign it.`;
  const [origin, destination] = await Promise.all([withCoordinates(ctx, input.origin), withCoordinates(ctx, input.destination)]);
  return { member, warning, origin, destination };
}

/**
 * The address with lat/long from the geocoder when it came without them; as given when it had them or when
 * it could not be placed (a shipment never fails for want of a map position).
 */
async function withCoordinates(ctx: AppContext, a: CreateInput['origin']): Promise<CreateInput['origin']> {
  if (a.lat != null && a.long != null) return a;
  const at = await locateAddress(ctx, { address1: a.address1, city: a.city, state: a.state, zip: a.zip, country: a.country });
  return at ? { ...a, lat: at.lat, long: at.long } : a;
}

/** What identifies a create request under an Idempotency-Key: the request as validated. */
export const createRequestIdentity = (input: CreateInput) => input;

/**
 * Create a shipment. Given `outer`, the caller's transaction (an Idempotency-Key's), each attempt runs in a
 * savepoint of it so that an SHM number collision can be retried without losing the key's reservation.
 */
export async function createShipment(
  ctx: AppContext,
  company: UserRow,
  input: CreateInput,
  plan?: CreatePlan,
  outer?: Tx,
): Promise<{ view: ShipmentView; warning?: string }> {
  const p = plan ?? (await planShipment(ctx, company, input));
  const { member, warning } = p;
  const origin = p.origin ?? input.origin;
  const destination = p.destination ?? input.destination;
  for (let attempt = 1; ; attempt++) {
    try {
      const run = <T>(work: (tx: Tx) => Promise<T>) => (outer ? outer.transaction(work) : ctx.db.transaction(work));
      const row = await run(async (tx) => {
        const id = randomUUID();
        const tid = newShmNumber();
        const now = ctx.now();
        // A shipment is billed as a tracking (one line of the usage report, the same price).
        await charge(tx, company.id, PRICING.shipmentCents, 'tracking', `shm:${id}`, `Shipment ${tid}`);
        const s = await repo.insertShipment(tx, {
          id,
          companyId: company.id,
          tid,
          status: input.status,
          orderId: input.orderId ?? '',
          message: input.message ?? '',
          expected: input.expected ? new Date(input.expected) : null,
          metadata: input.metadata,
          origin: addressRow(origin),
          destination: addressRow(destination),
          courierId: member?.id ?? null,
          courier: input.courier || (member ? fullName(member) : ''),
          courierEmail: input.courierEmail ?? '',
          windowFrom: input.windowFrom || null,
          windowTo: input.windowTo || null,
          createdAt: now,
          updatedAt: now,
        });
        await repo.insertParcels(tx, parcelRows(id, input.parcels));
        const cp = {
          status: input.status,
          location: placeLine(addressRow(input.origin) as never),
          message: 'Shipment created',
          time: now.toISOString(),
        };
        await repo.insertCheckpoint(tx, {
          shipmentId: id,
          status: cp.status,
          location: cp.location,
          message: cp.message,
          time: now,
          byUserId: company.id,
          byRole: 'company',
          byName: company.company || fullName(company),
        });
        await recordStatusChange(tx, ctx, s, input.status, cp);
        await publishShipment(tx, s, s.courierId, input.status, true);
        return repo.updateShipment(tx, id, { lastCheckPoint: cp });
      });
      return { view: await viewOf(ctx, row, outer ?? ctx.db), warning };
    } catch (err) {
      if (attempt < CREATE_ATTEMPTS && isUniqueViolation(err, 'shipments_tid_uq')) continue;
      throw err;
    }
  }
}

// ------------------------------------------------------------------ update (a checkpoint)
export const PROOF_UPLOADS_MESSAGE = 'Too many proofs of delivery sent from this account: wait a while, then send it again';

/** What an update needs before its transaction: who may write, the checkpoint's time, the images checked. */
export interface UpdatePlan {
  scope: repo.Scope;
  tid: string;
  time: Date;
  /** The courier's phone said when it happened (decision 120): an older one does not set the status. */
  late: boolean;
  proof: PreparedProof | null;
}

/**
 * A courier's checkpoint sent late from a phone (it carries occurredAt) for a shipment of their company that is
 * no longer theirs: the company hears of it once per shipment and courier, and the courier gets a sentence
 * (409) instead of "not found" (decision 120). Without occurredAt such a call stays a plain "not found".
 */
async function refuseNotYours(ctx: AppContext, user: UserRow, tid: string, input: UpdateInput, at: Date): Promise<never> {
  const s = user.companyId ? await repo.findByTid(ctx.db, { companyId: user.companyId }, tid) : undefined;
  if (!s) throw notFoundShipment();
  const now = s.courierId ? await repo.findUserById(ctx.db, s.courierId) : undefined;
  await raiseAlert(ctx.db, s.companyId, {
    group: 'general',
    name: 'courierUpdateNotSaved',
    level: 'warning',
    message:
      `${fullName(user)} recorded ${input.status} for ${s.tid} at ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC, ` +
      `but the shipment is ${now ? `now assigned to ${fullName(now)}` : 'no longer assigned to anyone'}: nothing was changed. ` +
      'Check with them what happened to the parcel.',
    dedupeKey: `checkpoint-not-yours:${s.id}:${user.id}`,
  });
  throw new AppError(409, MSG.checkpointNotYours, 'not_yours', { reason: 'not_yours', tid: s.tid });
}

/**
 * Check an update before any transaction: the caller may write to the shipment (the company, or the courier it is
 * assigned to; anyone else gets "not found" and nothing leaks), occurredAt is within its bounds, and the images are
 * checked and shrunk (a bad one is refused with nothing written).
 */
export async function planUpdate(ctx: AppContext, user: UserRow, input: UpdateInput): Promise<UpdatePlan> {
  const scope = scopeOf(user);
  const tid = normalizeTrackingNumber(input.tid);
  const now = ctx.now();
  let time = now;
  if (input.occurredAt) {
    time = new Date(input.occurredAt);
    if (time.getTime() > now.getTime() + OCCURRED_AT_LIMITS.maxSkewMs)
      throw badRequest(MSG.occurredAtInFuture, { occurredAt: MSG.occurredAtInFuture });
    if (time.getTime() < now.getTime() - OCCURRED_AT_LIMITS.maxAgeMs)
      throw badRequest(MSG.occurredAtTooOld, { occurredAt: MSG.occurredAtTooOld });
  } else if (input.time) time = new Date(input.time);
  if (!scope || !(await repo.findByTid(ctx.db, scope, tid))) {
    if (scope && 'courierId' in scope && input.occurredAt) await refuseNotYours(ctx, user, tid, input, time);
    throw notFoundShipment();
  }
  // Decoding is CPU work: each account may send PROOF_UPLOADS_PER_HOUR proofs an hour (every api process counts together).
  if (input.proof) {
    const take = await takeWindow(ctx.db, `proof:${user.id}`, ctx.config.PROOF_UPLOADS_PER_HOUR, 3_600_000, now);
    if (!take.ok) throw tooMany(PROOF_UPLOADS_MESSAGE, take.waitMs / 1000);
  }
  const proof = input.proof ? await prepareProof(input.proof) : null;
  return { scope, tid, time, late: !!input.occurredAt, proof };
}

/** What identifies an update under an Idempotency-Key: the request as validated. */
export const updateRequestIdentity = (input: UpdateInput) => input;

/**
 * Add the checkpoint planned by planUpdate, in `outer` (an Idempotency-Key's transaction) when given. The status is
 * the checkpoint's, except for one sent late from a phone (occurredAt) that happened before the shipment's latest
 * checkpoint: it joins the history where it happened and the status stays the latest (decision 120).
 */
export async function applyUpdate(ctx: AppContext, user: UserRow, input: UpdateInput, plan: UpdatePlan, outer?: Tx): Promise<ShipmentView> {
  const { scope, tid, time, proof } = plan;
  const run = <T>(work: (tx: Tx) => Promise<T>) => (outer ? outer.transaction(work) : ctx.db.transaction(work));
  const row = await run(async (tx) => {
    const s = await repo.lockByTid(tx, scope, tid);
    if (!s) throw notFoundShipment();
    const byCourier = user.role === 'courier';
    const message = input.message ?? (proof ? `Delivered, signed by ${proof.recipientName}` : '');
    const cp = { status: input.status, location: input.location, message, time: time.toISOString() };
    const latest = (s.lastCheckPoint as { time?: string } | null)?.time;
    const older = plan.late && !!latest && time.getTime() < new Date(latest).getTime();
    const checkpointId = await repo.insertCheckpoint(tx, {
      shipmentId: s.id,
      status: input.status,
      location: input.location,
      message,
      lat: input.lat ?? null,
      long: input.long ?? null,
      time,
      byUserId: user.id,
      byRole: byCourier ? 'courier' : 'company',
      // When it reached us, on the app's clock; a courier's day counts by `time`, when they acted (decision 138).
      createdAt: ctx.now(),
      byName: byCourier ? fullName(user) : user.company || fullName(user),
      podRecipientName: proof?.recipientName ?? null,
      podSignature: proof?.signature ?? null,
      podPhoto: proof?.photo ?? null,
      podPhotoType: proof?.photoType ?? null,
    });
    if (!older) await recordStatusChange(tx, ctx, s, input.status, cp);
    await publishShipment(tx, s, s.courierId, older ? s.status : input.status, !older && s.status !== input.status);
    if (older) return repo.updateShipment(tx, s.id, { updatedAt: ctx.now() });
    return repo.updateShipment(tx, s.id, { status: input.status, lastCheckPoint: { ...cp, id: checkpointId }, updatedAt: ctx.now() });
  });
  return viewOf(ctx, row, outer ?? ctx.db);
}

/** The courier's last known position, for the couriers map (after the checkpoint is stored). */
export async function notePosition(ctx: AppContext, user: UserRow, input: UpdateInput) {
  // A checkpoint sent late (occurredAt, decision 120) is where the courier was then, not now.
  if (user.role === 'courier' && input.lat != null && input.long != null)
    await reportPosition(ctx, user, input.lat, input.long, input.occurredAt ? new Date(input.occurredAt) : undefined);
}

/** The company, or the courier the shipment is assigned to; anyone else gets "not found" (nothing leaks). */
export async function updateShipment(ctx: AppContext, user: UserRow, input: UpdateInput): Promise<ShipmentView> {
  const view = await applyUpdate(ctx, user, input, await planUpdate(ctx, user, input));
  await notePosition(ctx, user, input);
  return view;
}

// ------------------------------------------------------------------ edit
export async function editShipment(ctx: AppContext, company: UserRow, input: EditInput): Promise<ShipmentView> {
  requireCompanyOwner(company);
  const tid = normalizeTrackingNumber(input.tid);
  let member: UserRow | undefined;
  if (input.courierEmail) member = await findCourierByEmail(ctx, company.id, input.courierEmail);
  const [origin, destination] = await Promise.all([
    input.origin && withCoordinates(ctx, input.origin),
    input.destination && withCoordinates(ctx, input.destination),
  ]);
  const row = await ctx.db.transaction(async (tx) => {
    const s = await repo.lockByTid(tx, { companyId: company.id }, tid);
    if (!s) throw notFoundShipment();
    const patch: Partial<repo.NewShipment> = { updatedAt: ctx.now() };
    if (origin) patch.origin = addressRow(origin);
    if (destination) patch.destination = addressRow(destination);
    if (input.orderId !== undefined) patch.orderId = input.orderId;
    if (input.message !== undefined) patch.message = input.message;
    if (input.expected !== undefined) patch.expected = new Date(input.expected);
    // '' clears a window; left out keeps it.
    if (input.windowFrom !== undefined) patch.windowFrom = input.windowFrom || null;
    if (input.windowTo !== undefined) patch.windowTo = input.windowTo || null;
    const from = patch.windowFrom !== undefined ? patch.windowFrom : s.windowFrom;
    const to = patch.windowTo !== undefined ? patch.windowTo : s.windowTo;
    if (from && to && from >= to) throw badRequest(MSG.planWindowOrder, { windowTo: MSG.planWindowOrder });
    if (input.courierEmail) {
      patch.courierEmail = input.courierEmail;
      patch.courierId = member?.id ?? null;
      patch.courier = input.courier ?? (member ? fullName(member) : s.courier);
    } else if (input.courier !== undefined) patch.courier = input.courier;
    if (input.parcels) await repo.replaceParcels(tx, s.id, parcelRows(s.id, input.parcels));
    const updated = await repo.updateShipment(tx, s.id, patch);
    await announceEdit(tx, company.id, s, updated);
    return updated;
  });
  return viewOf(ctx, row);
}

/**
 * Tells the open screens of the shipment's company and of `courierId` (its courier, or the one it was taken from)
 * that the shipment changed, once `db` commits.
 */
function publishShipment(
  db: Queryable,
  s: { id: string; tid: string; companyId: string },
  courierId: string | null,
  status: string,
  statusChanged: boolean,
) {
  return publishLive(db, { kind: 'shipment', accountId: s.companyId, courierId, shipmentId: s.id, tid: s.tid, status, statusChanged });
}

/**
 * Open screens refetch an edited shipment (its status unchanged): the company's, the courier it is assigned to,
 * and the one it was taken from.
 */
async function announceEdit(
  db: Queryable,
  accountId: string,
  before: { courierId: string | null },
  after: { id: string; tid: string; status: string; courierId: string | null },
) {
  const announce = (courierId: string | null) => publishShipment(db, { ...after, companyId: accountId }, courierId, after.status, false);
  await announce(after.courierId);
  if (before.courierId && before.courierId !== after.courierId) await announce(before.courierId);
}

// ------------------------------------------------------------------ bulk assignment
type AssignInput = z.output<typeof assignShipmentsRequest>;
type UnassignInput = z.output<typeof unassignShipmentsRequest>;

/**
 * Give `tids` to one courier, or take them from theirs (`courier` null), all or nothing: every tid must be one
 * of the company's shipments and the courier one of its couriers, else nothing changes. Open screens hear of
 * each shipment (the company's, the new courier's and the one it was taken from).
 */
async function setCourierOf(
  ctx: AppContext,
  company: UserRow,
  rawTids: string[],
  courier: UserRow | null,
  outer?: Tx,
): Promise<ShipmentView[]> {
  const tids = [...new Set(rawTids.map(normalizeTrackingNumber))];
  const run = <T>(work: (tx: Tx) => Promise<T>) => (outer ? outer.transaction(work) : ctx.db.transaction(work));
  const rows = await run(async (tx) => {
    const found = await repo.lockCompanyTids(tx, company.id, tids);
    const missing = tids.filter((t) => !found.some((r) => r.tid === t));
    if (missing.length)
      throw new AppError(
        404,
        `${MSG.shipmentNotFound}: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`,
        'not_found',
        { missing },
      );
    const updated = await repo.setCourier(
      tx,
      found.map((r) => r.id),
      {
        courierId: courier?.id ?? null,
        courier: courier ? fullName(courier) : '',
        courierEmail: courier?.email ?? '',
        updatedAt: ctx.now(),
      },
    );
    for (const before of found) {
      await announceEdit(
        tx,
        company.id,
        before,
        updated.find((u) => u.id === before.id)!,
      );
    }
    return updated;
  });
  const views = await viewsOf(ctx, rows, outer ?? ctx.db);
  return tids.map((t) => views.find((v) => v.tid === t)!);
}

export async function assignShipments(ctx: AppContext, company: UserRow, input: AssignInput): Promise<ShipmentView[]> {
  requireCompanyOwner(company);
  const courier = await findCourierByEmail(ctx, company.id, input.courierEmail);
  if (!courier) throw badRequest(MSG.notYourCourier, { courierEmail: MSG.notYourCourier });
  return setCourierOf(ctx, company, input.tids, courier);
}

/**
 * Plan the day hands each courier their planned shipments through the same path as a bulk assignment (the
 * same live events), in the plan's transaction. `courier` is one of the company's couriers, checked by the caller.
 */
export async function assignPlanned(ctx: AppContext, company: UserRow, courier: UserRow, tids: string[], tx: Tx): Promise<void> {
  requireCompanyOwner(company);
  if (tids.length) await setCourierOf(ctx, company, tids, courier, tx);
}

/** What Plan the day needs of a shipment: plain data, no row leaves the module. */
export interface PlanningShipment {
  id: string;
  tid: string;
  status: string;
  courierId: string | null;
  destination: { lat: number | null; long: number | null; address: string; name: string };
  origin: { lat: number | null; long: number | null };
  parcels: number;
  windowFrom: string | null;
  windowTo: string | null;
}
async function planningViews(db: Queryable, rows: repo.ShipmentRow[]): Promise<PlanningShipment[]> {
  const parcels = await repo.parcelsFor(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => {
    const d = addressView(r.destination);
    const o = addressView(r.origin);
    const count = parcels.filter((p) => p.shipmentId === r.id).reduce((n, p) => n + (p.quantity ?? 1), 0);
    return {
      id: r.id,
      tid: r.tid,
      status: r.status,
      courierId: r.courierId,
      destination: { lat: d.lat ?? null, long: d.long ?? null, address: [d.address1, d.city].filter(Boolean).join(', '), name: d.name },
      origin: { lat: o.lat ?? null, long: o.long ?? null },
      // A shipment without parcels listed still takes a place in the van.
      parcels: Math.max(1, count),
      windowFrom: r.windowFrom,
      windowTo: r.windowTo,
    };
  });
}

/** The company's open shipments expected in [from, to), and the open ones with no expected date. */
export async function openShipmentsForDay(ctx: AppContext, company: UserRow, from: Date, to: Date): Promise<PlanningShipment[]> {
  requireCompanyOwner(company);
  return planningViews(ctx.db, await repo.openForDay(ctx.db, company.id, [...OPEN_SHIPMENT_STATUSES], from, to));
}

/** The company's shipments by id, as Plan the day sees them (any status). */
export async function shipmentsByIds(
  ctx: AppContext,
  companyId: string,
  ids: string[],
  db: Queryable = ctx.db,
): Promise<PlanningShipment[]> {
  return planningViews(db, await repo.findByIds(db, companyId, ids));
}

export async function unassignShipments(ctx: AppContext, company: UserRow, input: UnassignInput): Promise<ShipmentView[]> {
  requireCompanyOwner(company);
  return setCourierOf(ctx, company, input.tids, null);
}

// ------------------------------------------------------------------ the map's markers
type MarkersInput = z.output<typeof shipmentMarkersRequest>;
const pointOf = (lat: number | null | undefined, long: number | null | undefined) => (lat != null && long != null ? { lat, long } : null);
const cityOf = (a: ReturnType<typeof addressView>) => [a.city, a.state].filter(Boolean).join(', ');

/** Every shipment of the caller in the asked statuses (open ones by default), light, a page at a time. */
export async function shipmentMarkers(ctx: AppContext, user: UserRow, q: MarkersInput): Promise<ShipmentMarkers> {
  const scope = scopeOf(user);
  if (!scope) throw forbidden(COMPANY_ONLY);
  const statuses = q.status.length ? q.status : [...OPEN_SHIPMENT_STATUSES];
  const afterTid = q.afterTid ? normalizeTrackingNumber(q.afterTid) : undefined;
  // One more than a page tells whether another page follows.
  const rows = await repo.listMarkers(ctx.db, { scope, statuses, afterTid, limit: q.numRecords + 1 });
  const page = rows.slice(0, q.numRecords);
  return {
    markers: page.map((r) => {
      const o = addressView(r.origin);
      const d = addressView(r.destination);
      return {
        tid: r.tid,
        status: r.status as ShipmentView['status'],
        courier: r.courier,
        origin: pointOf(o.lat, o.long),
        position: pointOf(r.posLat, r.posLong),
        destination: pointOf(d.lat, d.long),
        originCity: cityOf(o),
        destinationCity: cityOf(d),
      };
    }),
    nextTid: rows.length > q.numRecords ? page[page.length - 1]!.tid : null,
  };
}

// ------------------------------------------------------------------ lists
async function list(ctx: AppContext, scope: repo.Scope, q: ListInput): Promise<ShipmentView[]> {
  let after: { createdAt: Date; id: string } | undefined;
  if (q.lastTid) {
    const last = await repo.findByTid(ctx.db, scope, normalizeTrackingNumber(q.lastTid));
    if (!last)
      throw badRequest('lastTid is not one of your shipments: start again without lastTid', { lastTid: 'Unknown tracking number' });
    after = { createdAt: last.createdAt, id: last.id };
  }
  const rows = await repo.listShipments(ctx.db, { scope, limit: q.numRecords, statuses: q.status, courierEmails: q.courier, after });
  return viewsOf(ctx, rows);
}

export async function listCompanyShipments(ctx: AppContext, company: UserRow, q: ListInput) {
  requireCompanyOwner(company);
  return list(ctx, { companyId: company.id }, q);
}

export async function listAssigned(ctx: AppContext, user: UserRow, q: ListInput) {
  if (user.role !== 'courier') throw forbidden('Only couriers have assigned shipments: a company lists its shipments with getshipments');
  return list(ctx, { courierId: user.id }, q);
}

/** The most stops a courier's day lists (a round is far fewer; the full list is getassigned). */
export const COURIER_DAY_MAX_STOPS = 200;

/** A courier's day (POST /v1/shipment/today): open stops oldest first, and what they did since `since`. */
export async function courierDay(ctx: AppContext, user: UserRow, q: z.output<typeof courierDayRequest>): Promise<CourierDay> {
  if (user.role !== 'courier') throw forbidden('Only couriers have a day of stops: a company lists its shipments with getshipments');
  const now = ctx.now();
  const since = q.since ? new Date(q.since) : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const [rows, counts] = await Promise.all([
    repo.openAssigned(ctx.db, user.id, COURIER_DAY_MAX_STOPS),
    repo.courierDayCounts(ctx.db, user.id, since),
  ]);
  return { since: since.toISOString(), stops: await viewsOf(ctx, rows), planned: [], ...counts };
}

// ------------------------------------------------------------------ proof of delivery
export async function proofOf(ctx: AppContext, user: UserRow, rawTid: string, checkpointId: number): Promise<ProofView> {
  const scope = scopeOf(user);
  const s = scope ? await repo.findByTid(ctx.db, scope, normalizeTrackingNumber(rawTid)) : undefined;
  if (!s) throw notFoundShipment();
  const cp = await repo.findCheckpoint(ctx.db, s.id, checkpointId);
  if (!cp || cp.podRecipientName == null) throw notFound('This checkpoint has no proof of delivery');
  return {
    recipientName: cp.podRecipientName,
    signature: cp.podSignature ? `data:image/png;base64,${cp.podSignature.toString('base64')}` : null,
    photo: cp.podPhoto ? `data:image/${cp.podPhotoType ?? 'jpeg'};base64,${cp.podPhoto.toString('base64')}` : null,
  };
}

// ------------------------------------------------------------------ labels
export async function shipmentsForLabels(ctx: AppContext, user: UserRow, tids: string[]) {
  const scope = scopeOf(user);
  if (!scope) throw forbidden(COMPANY_ONLY);
  const wanted = [...new Set(tids.map(normalizeTrackingNumber))];
  const rows = await repo.findByTids(ctx.db, scope, wanted);
  const missing = wanted.filter((t) => !rows.some((r) => r.tid === t));
  if (missing.length) throw notFound(`${MSG.shipmentNotFound}: ${missing.slice(0, 5).join(', ')}`);
  const views = await viewsOf(ctx, rows);
  // In the order asked for.
  return wanted.map((t) => views.find((v) => v.tid === t)!);
}

// ------------------------------------------------------------------ public page, branding, detection
/**
 * How a company shows itself to its customers: its name, logo (profile image), theme colour and site. Rows saved
 * before names and addresses were checked on save are cleaned here: no control or bidi characters in the name,
 * and a logo or site that is not https (javascript:, data:...) is served as '' (decision 109).
 */
export function brandOf(company: UserRow): Brand {
  const themeid = ((company.settings as { themeid?: string } | null)?.themeid ?? 'A') as keyof typeof THEME_PRIMARY_COLORS;
  return {
    name: cleanText(company.company) || cleanText(fullName(company)),
    logo: cleanBrandUrl(company.image),
    color: THEME_PRIMARY_COLORS[themeid] ?? THEME_PRIMARY_COLORS.A,
    url: cleanBrandUrl(company.companyUrl),
  };
}

// ------------------------------------------------------------------ the company's logo (decision 099)
export const logoPath = (uid: string, at: Date) => `/v1/brand/logo/${uid}.png?v=${at.getTime()}`;
const isUploadedLogo = (image: string) => image.startsWith('/v1/brand/logo/');

/** Check and re-encode an uploaded logo, store it, and make it the brand's logo (the profile image). */
export async function uploadLogo(ctx: AppContext, company: UserRow, dataUrl: string): Promise<{ logo: string }> {
  requireCompanyOwner(company);
  const png = await prepareLogo(dataUrl);
  const at = ctx.now();
  await repo.saveLogo(ctx.db, company.id, png, at);
  const logo = logoPath(company.uid, at);
  await updateAccount(ctx, company, { profile: { image: logo } } as Parameters<typeof updateAccount>[2]);
  return { logo };
}

/** Drop the uploaded logo; a logo given as a web address is left alone. */
export async function removeLogo(ctx: AppContext, company: UserRow): Promise<{ logo: string }> {
  requireCompanyOwner(company);
  await repo.deleteLogo(ctx.db, company.id);
  if (isUploadedLogo(company.image)) {
    await updateAccount(ctx, company, { profile: { image: '' } } as Parameters<typeof updateAccount>[2]);
    return { logo: '' };
  }
  return { logo: company.image };
}

/** The stored PNG behind /v1/brand/logo/{uid}.png, for anyone (public pages and mails show it). */
export async function logoFile(ctx: AppContext, file: string): Promise<{ png: Buffer; updatedAt: Date } | undefined> {
  const m = /^([A-Za-z0-9_-]{1,64})\.png$/.exec(file);
  return m ? repo.findLogoByUid(ctx.db, m[1]!) : undefined;
}

/** The brand an account shows on its public pages: a company's own; a person's parcels show Shiptrail (null). */
export function brandOfOwner(owner: UserRow): Brand | null {
  return isCompanyOwner(owner) ? brandOf(owner) : null;
}

/** GET /v1/track/{uid}_{tid} for an SHM number. */
export async function publicShipment(ctx: AppContext, companyUid: string, rawTid: string): Promise<PublicShipment | null> {
  const tid = normalizeTrackingNumber(rawTid);
  if (!looksLikeShm(tid)) return null;
  const company = await repo.findCompanyByUid(ctx.db, companyUid);
  if (!company || !isCompanyOwner(company)) return null;
  const s = await repo.findForCompany(ctx.db, company.id, tid);
  if (!s) return null;
  const [cps, courierPosition] = await Promise.all([repo.checkpointsFor(ctx.db, [s.id]), publicCourierPosition(ctx, s)]);
  const view = publicShipmentView(s, cps, brandOf(company));
  return { ...view, courierPosition, notify: promisedNotify(view.notify, company.settings as StoredSettings) };
}

/**
 * Where the courier is, for the recipient's page (decision 128): only while this shipment is Out For Delivery,
 * and only a position of the last POSITION_FRESH_MS (an old one would send the recipient looking the wrong way).
 */
async function publicCourierPosition(ctx: AppContext, s: repo.ShipmentRow): Promise<PublicShipment['courierPosition']> {
  if (s.status !== 'OutForDelivery' || !s.courierId) return null;
  const c = await repo.findUserById(ctx.db, s.courierId);
  if (!c?.geoAt || c.geoLat == null || c.geoLng == null) return null;
  if (ctx.now().getTime() - c.geoAt.getTime() > POSITION_FRESH_MS) return null;
  const lat = Number(c.geoLat);
  const lng = Number(c.geoLng);
  return Number.isFinite(lat) && Number.isFinite(lng) ? { lat, lng, at: c.geoAt.toISOString() } : null;
}

/** The detect call's answer for an SHM number: Shiptrail's own. */
export function detectShm(raw: string): { courier: 'shm'; name: string; checkDigitValid: boolean } | null {
  const tid = normalizeTrackingNumber(raw);
  return looksLikeShm(tid) ? { courier: 'shm', name: 'Shiptrail (SHM shipment)', checkDigitValid: shmCheckDigitValid(tid) } : null;
}

/** The company an account works for: itself, or a courier's company. */
export async function companyOf(ctx: AppContext, user: UserRow): Promise<UserRow> {
  if (user.role !== 'courier' || !user.companyId) return user;
  return (await repo.findUserById(ctx.db, user.companyId)) ?? user;
}

/** The company's own couriers over [from, to): stops, on-time deliveries, failed attempts (decision 134). */
export async function courierPerformance(ctx: AppContext, company: UserRow, from: Date, to: Date) {
  return repo.courierPerformance(ctx.db, company.id, from, to, company.timeZone);
}
