import type { Bus, BusMessage } from '../../lib/bus.ts';
import { liveStreams } from '../../lib/metrics.ts';
import type { LiveEvent, PublicLiveEvent } from '@shiptrail/contract';

/** One event as a stream sends it: the bus message id (the same in every process) and the event. */
export interface LiveFrame {
  id: string;
  event: LiveEvent | { kind: 'reset' };
}

/** A visitor of one parcel's public page: it hears that parcel's events only, stripped to PublicLiveEvent. */
export interface PublicSubscriber {
  accountId: string;
  tid: string;
  send(frame: { id: string; event: PublicLiveEvent | { kind: 'reset' } }): void;
}

const parcelKey = (accountId: string, tid: string) => `${accountId}\n${tid}`;
/** Each parcel's public part of an event (one per parcel a courier's position concerns). */
const forPublic = (e: LiveEvent): PublicLiveEvent[] =>
  e.kind === 'tracking' || e.kind === 'shipment'
    ? [{ kind: e.kind, tid: e.tid, status: e.status, statusChanged: e.statusChanged }]
    : e.kind === 'courier'
      ? e.tids.map((tid) => ({ kind: 'courier', tid, lat: e.lat, lng: e.lng, at: e.at }))
      : [];

export interface LiveSubscriber {
  /** The signed-in user: an owner hears their account's events, a courier only what is assigned to them. */
  userId: string;
  role: string;
  send(frame: LiveFrame): void;
}

/** Events kept for Last-Event-ID replay: a few minutes of a busy account, bytes each. */
export const RING_SIZE = 2000;

/**
 * This process's side of the live streams: one bus subscription, subscribers indexed by user id (so an
 * event costs a map lookup plus one write per open stream of the people who may see it), and a ring of
 * recent events. Every process hears every event, so each ring holds the same ids, and a client that
 * reconnects to another process behind a load balancer still gets what it missed (as long as that process
 * was up when it happened and it is among the last RING_SIZE events).
 */
export class LiveHub {
  private readonly byUser = new Map<string, Set<LiveSubscriber>>();
  private readonly byParcel = new Map<string, Set<PublicSubscriber>>();
  private readonly ring: LiveFrame[] = [];
  private readonly unsubscribe: () => void;

  constructor(bus: Bus) {
    this.unsubscribe = bus.subscribe('live', (m) => this.onMessage(m));
  }

  private onMessage(m: BusMessage) {
    const event = m.data as LiveFrame['event'];
    const frame: LiveFrame = { id: m.id, event };
    if (event.kind === 'reset') {
      // The listener reconnected: what was sent meanwhile is unknown, so everyone refetches.
      this.ring.length = 0;
      for (const set of this.byUser.values()) for (const s of set) s.send(frame);
      for (const set of this.byParcel.values()) for (const p of set) p.send({ id: m.id, event: { kind: 'reset' } });
      return;
    }
    this.ring.push(frame);
    if (this.ring.length > RING_SIZE) this.ring.splice(0, this.ring.length - RING_SIZE);
    for (const s of this.audience(event)) s.send(frame);
    for (const pub of forPublic(event))
      for (const p of this.byParcel.get(parcelKey(event.accountId, pub.tid)) ?? []) p.send({ id: m.id, event: pub });
  }

  private *audience(e: LiveEvent): Iterable<LiveSubscriber> {
    // The recipients' copy of a position: the account's streams heard it as a 'position' event already.
    if (e.kind === 'courier') return;
    for (const s of this.byUser.get(e.accountId) ?? []) if (s.role !== 'courier') yield s;
    const courierId = e.kind === 'shipment' || e.kind === 'position' ? e.courierId : null;
    if (courierId) for (const s of this.byUser.get(courierId) ?? []) if (s.role === 'courier') yield s;
  }

  private mayRead(s: LiveSubscriber, e: LiveEvent): boolean {
    if (e.kind === 'courier') return false;
    if (s.role !== 'courier') return e.accountId === s.userId;
    return (e.kind === 'shipment' || e.kind === 'position') && e.courierId === s.userId;
  }

  /**
   * Start sending to `s`. With `lastEventId`, first replay what it missed; when that id is no longer in the
   * ring (too old, or this process started after it), send a `reset` so the client refetches everything.
   * Subscribing and replaying happen in one turn of the event loop, so nothing falls between them.
   */
  add(s: LiveSubscriber, lastEventId?: string): () => void {
    if (lastEventId) {
      const at = this.ring.findIndex((f) => f.id === lastEventId);
      if (at < 0) s.send({ id: lastEventId, event: { kind: 'reset' } });
      else for (const f of this.ring.slice(at + 1)) if (f.event.kind !== 'reset' && this.mayRead(s, f.event)) s.send(f);
    }
    let set = this.byUser.get(s.userId);
    if (!set) this.byUser.set(s.userId, (set = new Set()));
    set.add(s);
    liveStreams.inc();
    return () => {
      const cur = this.byUser.get(s.userId);
      if (!cur?.delete(s)) return;
      liveStreams.dec();
      if (cur.size === 0) this.byUser.delete(s.userId);
    };
  }

  /**
   * Start sending one parcel's events to a public page, replaying what it missed after `lastEventId` as `add`
   * does (only that parcel's events, stripped to their public part).
   */
  addPublic(p: PublicSubscriber, lastEventId?: string): () => void {
    const key = parcelKey(p.accountId, p.tid);
    if (lastEventId) {
      const at = this.ring.findIndex((f) => f.id === lastEventId);
      if (at < 0) p.send({ id: lastEventId, event: { kind: 'reset' } });
      else
        for (const f of this.ring.slice(at + 1)) {
          if (f.event.kind === 'reset') continue;
          for (const pub of forPublic(f.event)) if (parcelKey(f.event.accountId, pub.tid) === key) p.send({ id: f.id, event: pub });
        }
    }
    let set = this.byParcel.get(key);
    if (!set) this.byParcel.set(key, (set = new Set()));
    set.add(p);
    liveStreams.inc();
    return () => {
      const cur = this.byParcel.get(key);
      if (!cur?.delete(p)) return;
      liveStreams.dec();
      if (cur.size === 0) this.byParcel.delete(key);
    };
  }

  /** Open streams in this process (signed-in users' and public pages'). */
  get size(): number {
    let n = 0;
    for (const set of this.byUser.values()) n += set.size;
    for (const set of this.byParcel.values()) n += set.size;
    return n;
  }

  close(): void {
    this.unsubscribe();
    liveStreams.dec(this.size);
    this.byUser.clear();
    this.byParcel.clear();
  }
}
