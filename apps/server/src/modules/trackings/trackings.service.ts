import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
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
  type ImportReport,
  type PublicShipment,
  type PublicTracking,
  type TrackingView,
  type addTrackingRequest as AddSchema,
  type listTrackingsQuery,
  type updateTrackingRequest,
} from '@shiptrail/contract';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { AppError, badRequest, conflict, notFound, tooMany } from '../../lib/errors.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { UserRow } from '../accounts/accounts.repository.ts';
import { promisedNotify, type StoredSettings } from '../notifications/notifications.service.ts';
import {
  balanceCents,
  bookCharges,
  balanceEvent,
  freshChargeCtesOnce,
  InsufficientBalanceError,
  insufficientFor,
  lockAccount,
} from '../billing/billing.service.ts';
import { forgetAttempts, takeWindow } from '../../lib/attempts.repository.ts';
import {
  CarrierDetectError,
  detectCarriers,
  serviceFromNumber,
  normalizeTrackingNumber,
  resolveCourier,
  UNKNOWN_FORMAT_MESSAGE,
} from '../carriers/carriers.service.ts';
import { carriersOf, type JourneyStartLookup } from '../carriers/carriers.service.ts';
import { recordStatusChange } from './events.ts';
import { brandOfOwner, detectShm, publicShipment } from '../shipments/shipments.service.ts';
import { publicWindow } from '../planning/planning.service.ts';
import { FIRST_IN_LINE, LEASE_MS, refreshWake } from './refresh.ts';
import { refreshJob } from './trackings.jobs.ts';
import { enqueue } from '../../jobs/define.ts';
import { isFinal } from './schedule.ts';
import * as repo from './trackings.repository.ts';
import { checkpointJson, fingerprint, publicView, trackingView } from './views.ts';
import { postalOf } from './estimate.ts';
import { publishLive, type LiveEvent } from '../live/live.service.ts';
import { busMessages, notifyMessageSql } from '../../lib/bus.ts';

type AddInput = z.output<typeof AddSchema>;
type UpdateInput = z.output<typeof updateTrackingRequest>;
type ListInput = z.output<typeof listTrackingsQuery>;

/** "Refresh now" at most this often per tracking: carriers' quotas are shared by every account. */
export const MANUAL_REFRESH_GAP_MS = 60_000;

async function viewOf(ctx: AppContext, t: repo.TrackingRow, uid: string): Promise<TrackingView> {
  const cps = await repo.checkpointsFor(ctx.db, [t.id]);
  return trackingView(t, cps, uid, carriersOf(ctx).isSandbox(t.courier as never));
}

// ------------------------------------------------------------------ add
/** Detect the courier (or check the given one); a number we cannot place is a 400 that names the field. */
function resolve(input: { tid: string; courier: AddInput['courier'] }) {
  try {
    return resolveCourier(input.tid, input.courier ?? null);
  } catch (err) {
    if (err instanceof CarrierDetectError)
      throw badRequest(err.message, { [err.code === 'UNKNOWN_FORMAT' ? 'courier' : 'tid']: err.message });
    throw err;
  }
}

/** What an add binds in its statement: the tracking's columns, the charge's description and the messages it sends. */
export type AddValues = repo.PaidTrackingValues & { chargeDescription: string; messages: string };

/**
 * The add's statement, built once per process (decision 187): the tracking's insert (the repository's), the charge
 * with its follow-ups (billing's) and one notification, with placeholders where each add binds its AddValues. The
 * charge's ref is the tracking's id. The notification carries the add's three messages (addMessages), sent when the
 * tracking is inserted, so the charge sends none of its own. Exported for bench/add-parts.ts.
 */
const addCharge = () =>
  freshChargeCtesOnce(PRICING.trackingCents, 'tracking', {
    userId: sql.placeholder('userId'),
    ref: sql.placeholder('id'),
    description: sql.placeholder('chargeDescription'),
  });
export const addStatement = repo.paidTrackingStatement<AddValues>(() => ({
  charge: addCharge(),
  live: notifyMessageSql(sql.placeholder('messages')),
}));

/**
 * The same statement without the notification, for an add that commits alone: its messages are sent after it, with
 * the other adds' of the next moments (bus.sendSoon, decision 190). A transaction that notifies makes PostgreSQL
 * commit it alone (NOTIFY's lock at commit, decision 189): concurrent adds then waited for each other's commits.
 */
export const addAloneStatement = repo.paidTrackingStatement<AddValues>(() => ({ charge: addCharge(), live: sql`null` }));

/**
 * The add's three messages, in the order they were sent one by one before decision 187: the balance moved (the
 * account's open tabs), the tracking added (the same), and the scheduler's wake (the tracking is due first in line,
 * so its first refresh starts at once).
 */
export const addMessageList = (userId: string, trackingId: string, tid: string) => [
  { topic: 'live' as const, data: balanceEvent(userId) },
  {
    topic: 'live' as const,
    data: { kind: 'tracking', accountId: userId, trackingId, tid, status: 'Pending', statusChanged: false } satisfies LiveEvent,
  },
  refreshWake,
];

/** The add's three messages in one notification (bus.busMessages, decision 187), for an add in a caller's transaction. */
export const addMessages = (userId: string, trackingId: string, tid: string): string =>
  busMessages(addMessageList(userId, trackingId, tid));

/**
 * Store the tracking and charge for it in one statement (in `db`: the database, so the statement commits alone,
 * or the caller's transaction). The account is locked from that statement to its commit, so concurrent adds of one
 * account queue there and none can overspend; in autocommit that is the statement alone. An insufficient balance
 * writes nothing. The same statement announces the new row to the account's other open tabs and the balance, and
 * wakes the workers' scheduler: the tracking is due first in line, so its first refresh starts at once.
 */
async function addPaid(
  ctx: AppContext,
  tx: Tx | undefined,
  user: UserRow,
  input: AddInput,
  resolved: { tid: string; courier: string },
): Promise<repo.TrackingRow> {
  // A number the account already tracks fails the insert on the (user, tid) unique index: addTracking answers 409.
  const id = randomUUID();
  const now = ctx.now();
  // In a caller's transaction the messages go with its commit; alone, after this statement's (decision 190).
  const row = await repo.insertPaidTracking(tx ?? ctx.db, tx ? addStatement : addAloneStatement, {
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
    // Known from the number alone for some carriers (a UPS 1Z number's service digits); the carrier's own name replaces it.
    service: serviceFromNumber(resolved.tid, resolved.courier),
    status: 'Pending',
    nextCheckAt: FIRST_IN_LINE,
    createdAt: now,
    updatedAt: now,
    chargeDescription: `Tracking ${resolved.tid}`,
    messages: tx ? addMessages(user.id, id, resolved.tid) : '',
  });
  if (!row) throw await insufficientFor(tx ?? ctx.db, user.id, PRICING.trackingCents);
  if (!tx) ctx.bus.sendSoon(addMessageList(user.id, id, resolved.tid));
  return row;
}

/** A tracking just added, and the detection warning to show with it (a check digit that does not match, ...). */
export interface AddedTracking {
  view: TrackingView;
  warning?: string;
}

/**
 * What identifies an add request under an Idempotency-Key: the request with its number normalised. Checks
 * first that the number can be placed, so a number we cannot place is a 400 before any database work.
 */
export function addRequestIdentity(input: AddInput): unknown {
  resolve(input);
  return { ...input, tid: normalizeTrackingNumber(input.tid) };
}

/**
 * Add one tracking: in one statement that commits alone, or in the caller's `tx` (an Idempotency-Key's, which
 * then commits the key and its reply with the tracking).
 */
export async function addTracking(ctx: AppContext, user: UserRow, input: AddInput, tx?: Tx): Promise<AddedTracking> {
  const resolved = resolve(input);
  try {
    const row = await addPaid(ctx, tx, user, input, resolved);
    return { view: trackingView(row, [], user.uid, carriersOf(ctx).isSandbox(row.courier as never)), warning: resolved.warning };
  } catch (err) {
    // Two adds of one number raced past the duplicate check: the unique index decides.
    if (isUniqueViolation(err)) throw conflict(`You are already tracking ${resolved.tid}`);
    throw err;
  }
}

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

/** Rows written per transaction: small enough that other requests wait only a few ms for the database. */
const IMPORT_BATCH = 50;
/** Rows validated between two yields to the event loop. */
const IMPORT_VALIDATE_CHUNK = 100;
/** Other requests get the event loop (and the embedded database) between two steps of an import. */
const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Imports per account per window, and one at a time: each can carry MAX_IMPORT_ROWS rows. */
export const IMPORT_MAX_PER_WINDOW = 20;
const IMPORT_WINDOW_MS = 15 * 60_000;
/** How long an import holds its account's slot if its process dies before giving it back. */
const IMPORT_SLOT_LEASE_MS = 10 * 60_000;

interface ImportCandidate {
  index: number;
  input: AddInput;
  tid: string;
  courier: string;
  warning?: string;
}

/**
 * Imports per account: at most IMPORT_MAX_PER_WINDOW per window, and one at a time (each can carry
 * MAX_IMPORT_ROWS rows). `work` runs holding the account's import slot.
 */
export async function withImportSlot<T>(ctx: AppContext, user: UserRow, work: () => Promise<T>): Promise<T> {
  // Shared by every api process (lib/attempts.repository.ts): the slot first, then the count.
  const slotKey = `import:running:${user.id}`;
  const slot = await takeWindow(ctx.db, slotKey, 1, IMPORT_SLOT_LEASE_MS, ctx.now());
  if (!slot.ok) throw tooMany('An import is already running for this account: wait for its report, then send the next file', 5);
  try {
    const count = await takeWindow(ctx.db, `import:count:${user.id}`, IMPORT_MAX_PER_WINDOW, IMPORT_WINDOW_MS, ctx.now());
    if (!count.ok) throw tooMany('Too many imports: wait a few minutes, then send the next file', count.waitMs / 1000);
    return await work();
  } finally {
    await forgetAttempts(ctx.db, slotKey);
  }
}

export type CsvRecord = { record: Record<string, string>; info: { lines: number } };

/** Read an import file: a 400 that says what is wrong when it is not a CSV of trackings we can take. */
export function readImportCsv(text: string): CsvRecord[] {
  let records: CsvRecord[];
  try {
    records = parseCsv(text, {
      columns: (header: string[]) =>
        header.map(
          (h) =>
            HEADER_ALIASES[
              h
                .trim()
                .toLowerCase()
                .replace(/[\s_-]/g, '')
            ] ?? h.trim(),
        ),
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
  if (records.length === 0)
    throw badRequest('The CSV file has no rows: the first line is the header (tid, courier, title, orderId, customer, email, phone, note)');
  if (!('tid' in records[0]!.record))
    throw badRequest('The CSV header must have a tid column (tid, courier, title, orderId, customer, email, phone, note)');
  if (records.length > MAX_IMPORT_ROWS) throw badRequest(`A CSV import takes at most ${MAX_IMPORT_ROWS} rows; split the file`);
  return records;
}

/** An import's outcome per row, filled as the rows are placed, checked and written. */
type ImportOutcome = Array<{ status: 'created' | 'error'; tid: string; message: string }>;

/**
 * Step 1 of an import, without the database: each row validated and placed (its carrier detected); a bad row gets
 * its message in `outcome`, and a number repeated in the file is kept aside to share its first row's fate.
 */
async function placeImportRows(records: CsvRecord[], outcome: ImportOutcome) {
  const candidates: ImportCandidate[] = [];
  const firstOfTid = new Map<string, number>();
  const repeats: Array<{ index: number; first: number; tid: string }> = [];
  for (let i = 0; i < records.length; i++) {
    if (i > 0 && i % IMPORT_VALIDATE_CHUNK === 0) await yieldToOthers();
    const record = records[i]!.record;
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
      outcome[i] = { status: 'error', tid: raw.tid, message: Object.values(errors)[0] ?? MSG.validationFailed };
      continue;
    }
    let placed: { tid: string; courier: string; warning?: string };
    try {
      placed = resolve(parsed.data);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      outcome[i] = { status: 'error', tid: raw.tid, message: err.message };
      continue;
    }
    // The same number twice in one file: the later row gets the earlier row's fate (created: a duplicate).
    const first = firstOfTid.get(placed.tid);
    if (first !== undefined) {
      repeats.push({ index: i, first, tid: raw.tid });
      continue;
    }
    firstOfTid.set(placed.tid, i);
    candidates.push({ index: i, input: parsed.data, tid: placed.tid, courier: placed.courier, warning: placed.warning });
  }
  return { candidates, repeats };
}

/**
 * Step 4 of an import, one batch in its own transaction (a savepoint under an Idempotency-Key): the account locked
 * and its balance read again (concurrent adds and SMS may have spent it), the rows it pays for inserted (a number
 * added meanwhile by another request is skipped by the unique index), each charged once, and their first refresh
 * queued.
 */
async function writeImportBatch(ctx: AppContext, tx: Tx, user: UserRow, batch: ImportCandidate[]) {
  const cents = PRICING.trackingCents;
  await lockAccount(tx, user.id);
  const left = await balanceCents(tx, user.id);
  const affordable = batch.slice(0, Math.floor(Math.max(0, left) / cents));
  const now = ctx.now();
  const inserted = affordable.length
    ? await repo.insertTrackingsIgnoringDuplicates(
        tx,
        affordable.map((c) => ({
          id: randomUUID(),
          userId: user.id,
          tid: c.tid,
          courier: c.courier,
          title: c.input.title ?? '',
          orderId: c.input.orderId ?? '',
          customer: c.input.customer ?? '',
          notifyEmail: c.input.notify?.email ?? '',
          notifyPhone: c.input.notify?.phone ?? '',
          note: c.input.note ?? '',
          service: serviceFromNumber(c.tid, c.courier),
          status: 'Pending',
          // The queued job holds the trackings (a lease), so the scheduler does not fetch them twice.
          nextCheckAt: new Date(now.getTime() + LEASE_MS),
          createdAt: now,
          updatedAt: now,
        })),
      )
    : [];
  if (inserted.length) {
    await bookCharges(
      tx,
      user.id,
      cents,
      'tracking',
      inserted.map((t) => ({ ref: t.id, description: `Tracking ${t.tid}` })),
    );
    await enqueue(ctx, refreshJob, { v: 1, trackingIds: inserted.map((t) => t.id) }, { tx });
  }
  return { inserted, affordable: affordable.length, left: left - inserted.length * cents };
}

/**
 * A bad row never blocks the others, and each created tracking is charged once. The work is shaped so
 * that an import never stalls the server: every row is validated and placed without the database, the
 * balance decides up front how many rows can be paid for (the rest are refused with no database work),
 * and the payable rows are written in small set-based batches, one transaction each (tracking rows,
 * their charges and their first-refresh job commit together), yielding between batches. Given the caller's
 * transaction `outer` (an Idempotency-Key's), the batches are savepoints of it, so the key, its stored
 * report and every row commit together and a retry after a crash redoes nothing twice.
 */
export async function importTrackings(ctx: AppContext, user: UserRow, records: CsvRecord[], outer?: Tx): Promise<ImportReport> {
  const db = outer ?? ctx.db;
  const outcome: ImportOutcome = new Array(records.length);
  const alreadyTracking = (tid: string) => `You are already tracking ${tid}`;

  // 1. Validate and place every row, without the database.
  const { candidates, repeats } = await placeImportRows(records, outcome);

  // 2. Numbers the account already tracks: one set query per batch of numbers.
  const existing = new Set<string>();
  for (let i = 0; i < candidates.length; i += 1000) {
    for (const tid of await repo.existingTids(
      db,
      user.id,
      candidates.slice(i, i + 1000).map((c) => c.tid),
    ))
      existing.add(tid);
  }
  const toCreate: ImportCandidate[] = [];
  for (const c of candidates) {
    if (existing.has(c.tid))
      outcome[c.index] = { status: 'error', tid: records[c.index]!.record.tid ?? c.tid, message: alreadyTracking(c.tid) };
    else toCreate.push(c);
  }

  // 3. How many the balance pays for, before any per-row work; the rest are refused as they are.
  const cents = PRICING.trackingCents;
  let balance = await balanceCents(db, user.id);
  let payable = Math.min(toCreate.length, Math.floor(Math.max(0, balance) / cents));
  const refuseForBalance = (from: number, left: number) => {
    const message = new InsufficientBalanceError(left, cents).message;
    for (const c of toCreate.slice(from)) outcome[c.index] = { status: 'error', tid: records[c.index]!.record.tid ?? c.tid, message };
  };

  // 4. Write the payable rows in batches, yielding in between.
  let done = 0;
  while (done < payable) {
    const batch = toCreate.slice(done, Math.min(payable, done + IMPORT_BATCH));
    // Under an Idempotency-Key the batches are savepoints of the one transaction that also stores the key.
    const result = await db.transaction((tx) => writeImportBatch(ctx, tx, user, batch));
    const byTid = new Map(result.inserted.map((t) => [t.tid, t]));
    for (const c of batch.slice(0, result.affordable)) {
      const t = byTid.get(c.tid);
      // Not inserted: another request added the number since step 2 (the unique index decided).
      outcome[c.index] = t
        ? { status: 'created', tid: t.tid, message: c.warning ?? 'Tracking added' }
        : { status: 'error', tid: records[c.index]!.record.tid ?? c.tid, message: alreadyTracking(c.tid) };
    }
    balance = result.left;
    if (result.affordable < batch.length) {
      // The balance fell while the import ran: refuse from here on.
      payable = done + result.affordable;
      break;
    }
    done += batch.length;
    await yieldToOthers();
  }
  refuseForBalance(payable, balance);

  for (const r of repeats) {
    const first = outcome[r.first]!;
    outcome[r.index] =
      first.status === 'created'
        ? { status: 'error', tid: r.tid, message: alreadyTracking(first.tid) }
        : { status: 'error', tid: r.tid, message: first.message };
  }

  const report: ImportReport = { created: 0, failed: 0, rows: [] };
  outcome.forEach((o, i) => {
    if (o.status === 'created') report.created++;
    else report.failed++;
    report.rows.push({ row: records[i]!.info.lines, tid: o.tid, status: o.status, message: o.message });
  });
  return report;
}

// ------------------------------------------------------------------ list
/**
 * A page of the list as the JSON text of its TrackingView[]: one statement builds it in the database
 * (repo.listPageJson); the route sends it inside the envelope without parsing it again.
 */
export async function listTrackingsJson(ctx: AppContext, user: UserRow, q: ListInput): Promise<string> {
  const client = carriersOf(ctx);
  const json = await repo.listPageJson(ctx.db, {
    userId: user.id,
    uid: user.uid,
    limit: q.numRecords,
    statuses: q.status,
    couriers: q.courier,
    lastTid: q.lastTid ? normalizeTrackingNumber(q.lastTid) : undefined,
    sandboxCouriers: COURIER_SLUGS.filter((c) => client.isSandbox(c)),
  });
  if (json === null)
    throw badRequest('lastTid is not one of your trackings (was it deleted?): start again without lastTid', {
      lastTid: 'Unknown tracking number',
    });
  return json;
}

// ------------------------------------------------------------------ update, delivered, delete
export async function updateTracking(
  ctx: AppContext,
  user: UserRow,
  input: UpdateInput,
): Promise<{ view: TrackingView; warning?: string }> {
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
      Object.assign(patch, {
        courier: input.courier,
        status: 'Pending',
        origin: '',
        destination: '',
        expected: null,
        estimatedDelivery: null,
        promisedBy: null,
        lateFor: null,
        lastCheckPoint: null,
        lastCarrierDataAt: null,
        failures: 0,
        lastError: null,
        nextCheckAt: ctx.now(),
      });
      await recordStatusChange(tx, ctx, t, 'Pending', null);
    }
    const updated = await repo.updateTracking(tx, t.id, patch);
    await publishLive(tx, {
      kind: 'tracking',
      accountId: user.id,
      trackingId: t.id,
      tid: t.tid,
      status: updated.status,
      statusChanged: false,
    });
    return updated;
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
    await repo.insertCheckpoints(tx, [
      { trackingId: t.id, status: cp.status, location: null, message: cp.message, time: now, fingerprint: fingerprint(cp) },
    ]);
    const updated = await repo.updateTracking(tx, t.id, {
      status: 'Delivered',
      nextCheckAt: null,
      expected: null,
      estimatedDelivery: null,
      lastCheckPoint: checkpointJson(cp),
      updatedAt: now,
    });
    await recordStatusChange(tx, ctx, t, 'Delivered', checkpointJson(cp), { tracking: updated, user });
    return updated;
  });
  return { view: await viewOf(ctx, row, user.uid), already };
}

export async function deleteTracking(ctx: AppContext, user: UserRow, rawTid: string): Promise<void> {
  const tid = normalizeTrackingNumber(rawTid);
  await ctx.db.transaction(async (tx) => {
    const t = await repo.lockByTid(tx, user.id, tid);
    if (!t || !(await repo.deleteTracking(tx, user.id, tid))) throw notFound(MSG.shipmentNotFound);
    // Open screens drop it (and its public page, which then says not found).
    await publishLive(tx, { kind: 'tracking', accountId: user.id, trackingId: t.id, tid: t.tid, status: t.status, statusChanged: false });
  });
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
  const shm = detectShm(raw);
  if (shm)
    return {
      list: [shm],
      message: shm.checkDigitValid ? 'OK' : 'This looks like a Shiptrail SHM number, but its check digit does not match: check for a typo',
    };
  const list = detectCarriers(raw).map(({ courier, name, checkDigitValid }) => ({ courier, name, checkDigitValid }));
  return { list, message: list.length ? 'OK' : UNKNOWN_FORMAT_MESSAGE };
}

export function listCouriers(ctx: AppContext) {
  const client = carriersOf(ctx);
  return COURIER_SLUGS.map((courier) => ({ courier, name: COURIER_NAMES[courier], sandbox: client.isSandbox(courier) }));
}

/** GET /v1/track/{uid}_{tid}: uids have no underscore, tracking numbers may, so split on the first one. */
export async function publicTracking(ctx: AppContext, key: string): Promise<Array<PublicTracking | PublicShipment>> {
  const cut = key.indexOf('_');
  if (cut < 1 || cut === key.length - 1) throw notFound(MSG.shipmentNotFound);
  // A company's own shipment (an SHM number) is on the same public page.
  const shipment = await publicShipment(ctx, key.slice(0, cut), key.slice(cut + 1));
  // The window of the day's plan, when the shipment is planned (decision 118).
  if (shipment) return [{ ...shipment, window: await publicWindow(ctx, shipment.tid, shipment.status) }];
  // One statement: the tracking, its account (for the brand) and its checkpoints.
  const found = await repo.findPublicTracking(ctx.db, key.slice(0, cut), normalizeTrackingNumber(key.slice(cut + 1)));
  if (!found) throw notFound(MSG.shipmentNotFound);
  const { tracking: t, owner } = found;
  const cps = found.checkpoints.map((c) => ({ ...c, time: new Date(c.time) }));
  const view = publicView(t, cps, carriersOf(ctx).isSandbox(t.courier as never));
  return [{ ...view, notify: promisedNotify(view.notify, owner.settings as StoredSettings), brand: brandOfOwner(owner) }];
}

/**
 * Which parcel a public page's live stream follows: the account it belongs to and its stored number. Not found
 * exactly when the page itself is not found.
 */
export async function publicParcelSubject(ctx: AppContext, key: string): Promise<{ accountId: string; tid: string }> {
  const [view] = await publicTracking(ctx, key);
  const accountId = await repo.findUserIdByUid(ctx.db, key.slice(0, key.indexOf('_')));
  if (!view || !accountId) throw notFound(MSG.shipmentNotFound);
  return { accountId, tid: view.tid };
}

// ------------------------------------------------------------------ the carrier sandbox's journey clock
/**
 * The sandbox's durable journey clock. Every sandbox journey starts with its label scan at the journey's start
 * (to the second), and the refresh engine stores that scan as a checkpoint; so the earliest stored checkpoint of a
 * number is where its journey started. A restarted server (or another process on the same PostgreSQL) continues
 * each journey from there instead of sending parcels back to their first step. Numbers with no stored checkpoint
 * yet start when the sandbox is first asked.
 */
/**
 * The platform's delivered parcels the delivery-date predictor learns from (decision 122): carrier, service (decision
 * 166), the postal codes of origin and destination, the first scan (shipped) and the delivery scan, of the most recent ones.
 */
export async function deliveredHistory(
  ctx: AppContext,
  limit = 20_000,
): Promise<
  Array<{
    carrier: string;
    service: string | null;
    originPostal: string | null;
    destinationPostal: string | null;
    shippedAt: string;
    deliveredAt: string;
  }>
> {
  const rows = await repo.deliveredHistory(ctx.db, limit);
  return rows.map((r) => ({
    carrier: r.courier,
    service: r.service,
    originPostal: postalOf(r.origin),
    destinationPostal: postalOf(r.destination),
    shippedAt: r.shippedAt.toISOString(),
    deliveredAt: r.deliveredAt.toISOString(),
  }));
}

export function sandboxJourneyStarts(ctx: AppContext): JourneyStartLookup {
  return (courier, tids) => repo.earliestCheckpointTimes(ctx.db, courier, tids);
}
