import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { parse as parseCsv } from 'csv-parse/sync';
import {
  COURIER_NAMES,
  COURIER_SLUGS,
  MAX_IMPORT_ROWS,
  MSG,
  PRICING,
  addTrackingRequest,
  fieldErrors,
  type Envelope,
  type ImportReport,
  type PublicTracking,
  type TrackingView,
  type addTrackingRequest as AddSchema,
  type listTrackingsQuery,
  type updateTrackingRequest,
} from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { AppError, badRequest, conflict, notFound, tooMany } from '../../lib/errors.ts';
import { sha256 } from '../../lib/crypto.ts';
import { success } from '../../lib/http.ts';
import type { UserRow } from '../accounts/accounts.repository.ts';
import { charge } from '../billing/billing.service.ts';
import { CarrierDetectError, detectCarriers, normalizeTrackingNumber, resolveCourier, UNKNOWN_FORMAT_MESSAGE } from '../carriers/carriers.service.ts';
import { carriersOf } from '../carriers/carriers.service.ts';
import { recordStatusChange } from './events.ts';
import { LEASE_MS } from './refresh.ts';
import { refreshJob } from './trackings.jobs.ts';
import { enqueue } from '../../jobs/define.ts';
import { isFinal } from './schedule.ts';
import * as repo from './trackings.repository.ts';
import { checkpointFromJson, checkpointJson, fingerprint, publicView, trackingView } from './views.ts';

type AddInput = z.output<typeof AddSchema>;
type UpdateInput = z.output<typeof updateTrackingRequest>;
type ListInput = z.output<typeof listTrackingsQuery>;

/** "Refresh now" at most this often per tracking: carriers' quotas are shared by every account. */
export const MANUAL_REFRESH_GAP_MS = 60_000;
const ADD_ROUTE = 'POST /v1/trackings/add';

async function viewOf(ctx: AppContext, t: repo.TrackingRow, uid: string): Promise<TrackingView> {
  const cps = await repo.checkpointsFor(ctx.db, [t.id]);
  return trackingView(t, cps, uid, carriersOf(ctx).isSandbox(t.courier as never));
}

function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e.code === '23505') return true;
  }
  return false;
}

// ------------------------------------------------------------------ add
/** Detect the courier (or check the given one); a number we cannot place is a 400 that names the field. */
function resolve(input: { tid: string; courier: AddInput['courier'] }) {
  try {
    return resolveCourier(input.tid, input.courier ?? null);
  } catch (err) {
    if (err instanceof CarrierDetectError) throw badRequest(err.message, { [err.code === 'UNKNOWN_FORMAT' ? 'courier' : 'tid']: err.message });
    throw err;
  }
}

/**
 * Store, charge and queue the first refresh in the caller's transaction: all three commit together, so
 * an insufficient balance or a duplicate leaves nothing behind.
 */
async function addInTx(ctx: AppContext, tx: Tx, user: UserRow, input: AddInput, resolved: { tid: string; courier: string }): Promise<repo.TrackingRow> {
  const duplicate = () => conflict(`You are already tracking ${resolved.tid}`);
  if (await repo.findByTid(tx, user.id, resolved.tid)) throw duplicate();
  const id = randomUUID();
  // Locks the account row: concurrent adds of one account queue here, so none can overspend.
  await charge(tx, user.id, PRICING.trackingCents, 'tracking', id, `Tracking ${resolved.tid}`);
  // The queued job holds the tracking (a lease), so the scheduler loop does not fetch it a second time.
  const now = ctx.now();
  const row = await repo.insertTracking(tx, {
    id,
    userId: user.id,
    tid: resolved.tid,
    courier: resolved.courier,
    title: input.title ?? '',
    orderId: input.orderId ?? '',
    customer: input.customer ?? '',
    notifyEmail: input.notify?.email ?? '',
    notifyPhone: input.notify?.phone ?? '',
    note: input.note ?? '',
    status: 'Pending',
    nextCheckAt: new Date(now.getTime() + LEASE_MS),
    createdAt: now,
    updatedAt: now,
  });
  await enqueue(ctx, refreshJob, { v: 1, trackingIds: [id] }, { tx });
  return row;
}

async function addOne(ctx: AppContext, user: UserRow, input: AddInput, tx?: Tx) {
  const resolved = resolve(input);
  try {
    // Inside a caller's transaction each add is a savepoint: a row that fails rolls back alone.
    const row = tx ? await tx.transaction((sp) => addInTx(ctx, sp, user, input, resolved)) : await ctx.db.transaction((t) => addInTx(ctx, t, user, input, resolved));
    return { row, warning: resolved.warning };
  } catch (err) {
    // Two adds of one number raced past the duplicate check: the unique index decides.
    if (isUniqueViolation(err)) throw conflict(`You are already tracking ${resolved.tid}`);
    throw err;
  }
}

type AddPayload = TrackingView & { warning?: string };

/** A reply as it goes on the wire: the status and the exact JSON text of the envelope. */
export interface ExactReply {
  statusCode: number;
  text: string;
}
const exact = (statusCode: number, body: Envelope<unknown>): ExactReply => ({ statusCode, text: JSON.stringify(body) });

/** JSON with object keys sorted at every depth: two requests that mean the same hash the same. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}
export const requestHash = (canonical: unknown) => sha256(canonicalJson(canonical));

/**
 * Run `work` once per (account, route, Idempotency-Key). The key is reserved in the same transaction as the
 * work and holds the exact reply text: a retry (even a concurrent one, which waits on the key's unique index)
 * gets the first reply byte for byte and nothing is done or charged again. The hash of the canonical request
 * is stored with the key, so reusing a key for a different request is refused (422) instead of silently
 * answering with another request's result. Failures are not stored, so a retry after topping up can succeed.
 */
async function idempotent(
  ctx: AppContext,
  user: UserRow,
  route: string,
  rawKey: string,
  hash: string,
  work: (tx: Tx) => Promise<ExactReply>,
  onUniqueViolation: () => AppError,
): Promise<ExactReply> {
  const key = rawKey.slice(0, 200);
  const replay = (row: Awaited<ReturnType<typeof repo.findIdempotent>>): ExactReply | undefined => {
    if (!row) return undefined;
    if (row.requestHash && row.requestHash !== hash) throw new AppError(422, MSG.idempotencyKeyReused, 'idempotency_key_reused');
    return row.statusCode > 0 ? { statusCode: row.statusCode, text: row.body } : undefined;
  };
  const first = replay(await repo.findIdempotent(ctx.db, user.id, route, key));
  if (first) return first;
  try {
    return await ctx.db.transaction(async (tx) => {
      if (!(await repo.reserveIdempotent(tx, user.id, route, key, hash))) throw new ReplayFirst();
      const out = await work(tx);
      await repo.storeIdempotent(tx, user.id, route, key, out.statusCode, out.text);
      return out;
    });
  } catch (err) {
    if (err instanceof ReplayFirst || isUniqueViolation(err)) {
      const stored = replay(await repo.findIdempotent(ctx.db, user.id, route, key));
      if (stored) return stored;
      if (isUniqueViolation(err)) throw onUniqueViolation();
      throw conflict(MSG.idempotencyKeyInProgress);
    }
    throw err;
  }
}

/** POST /v1/trackings/add, optionally under an Idempotency-Key (see `idempotent`). */
export async function addTracking(ctx: AppContext, user: UserRow, input: AddInput, idempotencyKey?: string): Promise<ExactReply> {
  const respond = (row: repo.TrackingRow, warning?: string) => {
    const view: AddPayload = { ...trackingView(row, [], user.uid, carriersOf(ctx).isSandbox(row.courier as never)), ...(warning ? { warning } : {}) };
    return exact(201, success(view, warning ? `Tracking added. ${warning}` : 'Tracking added', 201));
  };
  if (!idempotencyKey) {
    const { row, warning } = await addOne(ctx, user, input);
    return respond(row, warning);
  }
  const resolved = resolve(input);
  const hash = requestHash({ ...input, tid: normalizeTrackingNumber(input.tid) });
  return idempotent(
    ctx,
    user,
    ADD_ROUTE,
    idempotencyKey,
    hash,
    async (tx) => respond(await addInTx(ctx, tx, user, input, resolved), resolved.warning),
    () => conflict(`You are already tracking ${resolved.tid}`),
  );
}
class ReplayFirst extends Error {}

// ------------------------------------------------------------------ CSV import
const HEADER_ALIASES: Record<string, string> = {
  tid: 'tid',
  trackingnumber: 'tid',
  tracking: 'tid',
  courier: 'courier',
  carrier: 'courier',
  title: 'title',
  orderid: 'orderId',
  order: 'orderId',
  customer: 'customer',
  email: 'email',
  notifyemail: 'email',
  phone: 'phone',
  notifyphone: 'phone',
  note: 'note',
  notes: 'note',
};

const IMPORT_ROUTE = 'POST /v1/trackings/import';

/**
 * Each row is added and charged on its own; a bad row never blocks the others. Without an Idempotency-Key
 * each row is its own transaction; with one, the whole import is one transaction (a savepoint per row), so
 * the key, its stored report and every row commit together and a retry after a crash redoes nothing twice.
 */
export async function importCsv(ctx: AppContext, user: UserRow, text: string, idempotencyKey?: string): Promise<ExactReply> {
  const records = readCsv(text);
  const respond = (report: ImportReport) => exact(200, success(report, `${report.created} added, ${report.failed} failed`));
  if (!idempotencyKey) return respond(await importRows(ctx, user, records));
  return idempotent(ctx, user, IMPORT_ROUTE, idempotencyKey, requestHash({ csv: text }), async (tx) => respond(await importRows(ctx, user, records, tx)), () =>
    conflict(MSG.idempotencyKeyInProgress),
  );
}

type CsvRecord = { record: Record<string, string>; info: { lines: number } };

function readCsv(text: string): CsvRecord[] {
  let records: CsvRecord[];
  try {
    records = parseCsv(text, {
      columns: (header: string[]) => header.map((h) => HEADER_ALIASES[h.trim().toLowerCase().replace(/[\s_-]/g, '')] ?? h.trim()),
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
      to: MAX_IMPORT_ROWS + 1,
    }) as never;
  } catch (err) {
    throw badRequest(`The CSV file could not be read: ${(err as Error).message}`);
  }
  if (records.length === 0) throw badRequest('The CSV file has no rows: the first line is the header (tid, courier, title, orderId, customer, email, phone, note)');
  if (!('tid' in records[0]!.record)) throw badRequest('The CSV header must have a tid column (tid, courier, title, orderId, customer, email, phone, note)');
  if (records.length > MAX_IMPORT_ROWS) throw badRequest(`A CSV import takes at most ${MAX_IMPORT_ROWS} rows; split the file`);
  return records;
}

async function importRows(ctx: AppContext, user: UserRow, records: CsvRecord[], tx?: Tx): Promise<ImportReport> {
  const report: ImportReport = { created: 0, failed: 0, rows: [] };
  for (const { record, info } of records) {
    const row = info.lines;
    const raw = {
      tid: record.tid ?? '',
      courier: record.courier || null,
      title: record.title,
      orderId: record.orderId,
      customer: record.customer,
      notify: { email: record.email, phone: record.phone },
      note: record.note,
    };
    const parsed = addTrackingRequest.safeParse(raw);
    if (!parsed.success) {
      const errors = fieldErrors(parsed.error);
      report.failed++;
      report.rows.push({ row, tid: raw.tid, status: 'error', message: Object.values(errors)[0] ?? MSG.validationFailed });
      continue;
    }
    try {
      const { row: t, warning } = await addOne(ctx, user, parsed.data, tx);
      report.created++;
      report.rows.push({ row, tid: t.tid, status: 'created', message: warning ?? 'Tracking added' });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      report.failed++;
      report.rows.push({ row, tid: raw.tid, status: 'error', message: err.message });
    }
  }
  return report;
}

// ------------------------------------------------------------------ list
export async function listTrackings(ctx: AppContext, user: UserRow, q: ListInput): Promise<TrackingView[]> {
  let after: { createdAt: Date; id: string } | undefined;
  if (q.lastTid) {
    const last = await repo.findByTid(ctx.db, user.id, normalizeTrackingNumber(q.lastTid));
    if (!last) throw badRequest('lastTid is not one of your trackings (was it deleted?): start again without lastTid', { lastTid: 'Unknown tracking number' });
    after = { createdAt: last.createdAt, id: last.id };
  }
  const rows = await repo.listTrackings(ctx.db, { userId: user.id, limit: q.numRecords, statuses: q.status, couriers: q.courier, after });
  const byTracking = await repo.checkpointsJsonFor(ctx.db, rows.map((r) => r.id));
  const client = carriersOf(ctx);
  return rows.map((r) => trackingView(r, (byTracking.get(r.id) ?? []).map(checkpointFromJson), user.uid, client.isSandbox(r.courier as never)));
}

// ------------------------------------------------------------------ update, delivered, delete
export async function updateTracking(ctx: AppContext, user: UserRow, input: UpdateInput): Promise<{ view: TrackingView; warning?: string }> {
  const tid = normalizeTrackingNumber(input.tid);
  let warning: string | undefined;
  const row = await ctx.db.transaction(async (tx) => {
    const t = await repo.lockByTid(tx, user.id, tid);
    if (!t) throw notFound(MSG.shipmentNotFound);
    const patch: Partial<repo.NewTracking> = { updatedAt: ctx.now() };
    if (input.title !== undefined) patch.title = input.title;
    if (input.orderId !== undefined) patch.orderId = input.orderId;
    if (input.customer !== undefined) patch.customer = input.customer;
    if (input.note !== undefined) patch.note = input.note;
    // notify replaces both contacts: leaving one out clears it.
    if (input.notify) {
      patch.notifyEmail = input.notify.email ?? '';
      patch.notifyPhone = input.notify.phone ?? '';
    }
    if (input.courier && input.courier !== t.courier) {
      warning = resolve({ tid: t.tid, courier: input.courier }).warning;
      // The old carrier's data belongs to another parcel: start over with the new carrier, now.
      await repo.deleteCheckpoints(tx, t.id);
      Object.assign(patch, { courier: input.courier, status: 'Pending', origin: '', destination: '', expected: null, lastCheckPoint: null, lastCarrierDataAt: null, failures: 0, lastError: null, nextCheckAt: ctx.now() });
      await recordStatusChange(tx, ctx, t, 'Pending', null);
    }
    return repo.updateTracking(tx, t.id, patch);
  });
  return { view: await viewOf(ctx, row, user.uid), warning };
}

const MANUAL_DELIVERED = 'Marked as delivered';

/** Final: stops refreshing, records a checkpoint and a status event (notifications fan out from it). */
export async function markDelivered(ctx: AppContext, user: UserRow, rawTid: string): Promise<{ view: TrackingView; already: boolean }> {
  const tid = normalizeTrackingNumber(rawTid);
  let already = false;
  const row = await ctx.db.transaction(async (tx) => {
    const t = await repo.lockByTid(tx, user.id, tid);
    if (!t) throw notFound(MSG.shipmentNotFound);
    if (t.status === 'Delivered') {
      already = true;
      if (t.nextCheckAt === null) return t;
      return repo.updateTracking(tx, t.id, { nextCheckAt: null });
    }
    const now = ctx.now();
    const cp = { status: 'Delivered' as const, location: null, message: MANUAL_DELIVERED, time: now.toISOString() };
    await repo.insertCheckpoints(tx, [{ trackingId: t.id, status: cp.status, location: null, message: cp.message, time: now, fingerprint: fingerprint(cp) }]);
    const updated = await repo.updateTracking(tx, t.id, { status: 'Delivered', nextCheckAt: null, expected: null, lastCheckPoint: checkpointJson(cp), updatedAt: now });
    await recordStatusChange(tx, ctx, t, 'Delivered', checkpointJson(cp));
    return updated;
  });
  return { view: await viewOf(ctx, row, user.uid), already };
}

export async function deleteTracking(ctx: AppContext, user: UserRow, rawTid: string): Promise<void> {
  if (!(await repo.deleteTracking(ctx.db, user.id, normalizeTrackingNumber(rawTid)))) throw notFound(MSG.shipmentNotFound);
}

// ------------------------------------------------------------------ refresh now
export async function refreshNow(ctx: AppContext, user: UserRow, rawTid: string): Promise<TrackingView> {
  const tid = normalizeTrackingNumber(rawTid);
  const t = await repo.findByTid(ctx.db, user.id, tid);
  if (!t) throw notFound(MSG.shipmentNotFound);
  if (isFinal(t.status) || t.nextCheckAt === null) throw conflict(`This tracking is ${t.status}: it is not refreshed any more`);
  const now = ctx.now();
  const claimed = await ctx.db.transaction(async (tx) => {
    const row = await repo.claimManualRefresh(tx, t.id, now, MANUAL_REFRESH_GAP_MS, new Date(now.getTime() + LEASE_MS));
    if (row) await enqueue(ctx, refreshJob, { v: 1, trackingIds: [t.id] }, { tx });
    return row;
  });
  if (!claimed) {
    const wait = MANUAL_REFRESH_GAP_MS - (now.getTime() - (t.lastCheckedAt?.getTime() ?? 0));
    throw tooMany('This tracking was checked less than a minute ago; try again shortly', Math.max(1, wait / 1000));
  }
  return viewOf(ctx, claimed, user.uid);
}

// ------------------------------------------------------------------ couriers, public page
export function detect(raw: string) {
  const list = detectCarriers(raw).map(({ courier, name, checkDigitValid }) => ({ courier, name, checkDigitValid }));
  return { list, message: list.length ? 'OK' : UNKNOWN_FORMAT_MESSAGE };
}

export function listCouriers(ctx: AppContext) {
  const client = carriersOf(ctx);
  return COURIER_SLUGS.map((courier) => ({ courier, name: COURIER_NAMES[courier], sandbox: client.isSandbox(courier) }));
}

/** GET /v1/track/{uid}_{tid}: uids have no underscore, tracking numbers may, so split on the first one. */
export async function publicTracking(ctx: AppContext, key: string): Promise<PublicTracking[]> {
  const cut = key.indexOf('_');
  if (cut < 1 || cut === key.length - 1) throw notFound(MSG.shipmentNotFound);
  const userId = await repo.findUserIdByUid(ctx.db, key.slice(0, cut));
  if (!userId) throw notFound(MSG.shipmentNotFound);
  const t = await repo.findByTid(ctx.db, userId, normalizeTrackingNumber(key.slice(cut + 1)));
  if (!t) throw notFound(MSG.shipmentNotFound);
  const cps = await repo.checkpointsFor(ctx.db, [t.id]);
  return [publicView(t, cps, carriersOf(ctx).isSandbox(t.courier as never))];
}
