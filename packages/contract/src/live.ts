// The live streams' events (GET /v1/live for a signed-in user, GET /v1/track/{uid}_{tid}/live for a public page):
// one definition for the server that sends them and the web app that reads them.

/**
 * What the signed-in users' streams carry: small facts that tell an open screen what to refetch, never
 * whole objects (the reader's own reads decide what they may see). `accountId` is the owner account the
 * event belongs to; `courierId` is the courier a shipment is assigned to (or who moved), who may read it too.
 */
export type LiveEvent =
  | { kind: 'tracking'; accountId: string; trackingId: string; tid: string; status: string; statusChanged: boolean }
  | {
      kind: 'shipment';
      accountId: string;
      courierId: string | null;
      shipmentId: string;
      tid: string;
      status: string;
      statusChanged: boolean;
    }
  | { kind: 'position'; accountId: string; courierId: string }
  /**
   * A courier's shared position (at most every 15 s, decision 128) for the public pages of the shipments they
   * have out for delivery: the hub hands each page its own parcel's copy, without the others' numbers.
   */
  | { kind: 'courier'; accountId: string; courierId: string; tids: string[]; lat: number; lng: number; at: string }
  | { kind: 'members'; accountId: string }
  | { kind: 'balance'; accountId: string }
  | { kind: 'alert'; accountId: string };

/** A stream's own event: the server could not say what was missed since Last-Event-ID, so everything is refetched. */
export type LiveReset = { kind: 'reset' };

/**
 * What a public page's stream may carry of a parcel's event: its number and status, nothing of the account; or,
 * while it is out for delivery, where its courier is (never which other parcels that courier carries).
 */
export type PublicLiveEvent =
  | { kind: 'tracking' | 'shipment'; tid: string; status: string; statusChanged: boolean }
  | { kind: 'courier'; tid: string; lat: number; lng: number; at: string };

export interface SseFrame {
  id?: string;
  data: string;
}

/**
 * Splits a server-sent events text stream into frames; feed it chunks, it keeps the unfinished tail. One reader
 * for the web app's stream and the server tests' client: comments are skipped, `id` kept, `data` lines joined.
 */
export function sseParser(onFrame: (f: SseFrame) => void): (chunk: string) => void {
  let buf = '';
  return (chunk) => {
    buf += chunk.replace(/\r\n?/g, '\n');
    let at: number;
    while ((at = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, at);
      buf = buf.slice(at + 2);
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length) onFrame({ id, data: data.join('\n') });
    }
  };
}
