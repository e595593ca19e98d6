// Scripted, deterministic parcel journeys for the carrier sandbox. A number's journey and its pace come from a
// hash of the number, so the same number behaves the same on every machine. The clock starts the first time the
// sandbox is asked about the number; in the app that start is read back from the stored label scan after a
// restart, so journeys continue. A new user sees parcels move with nothing configured.

export type StepKind = 'label' | 'pickup' | 'arrive' | 'depart' | 'ofd' | 'attempt' | 'delivered' | 'exception';
export type JourneyName = 'delivered' | 'fail-attempt' | 'exception' | 'not-found';

/** Seconds after the anchor at pace 1. A whole journey plays out in about 4–5 minutes. */
const JOURNEYS: Record<JourneyName, Array<{ at: number; kind: StepKind }>> = {
  delivered: [
    { at: 0, kind: 'label' },
    { at: 30, kind: 'pickup' },
    { at: 70, kind: 'arrive' },
    { at: 110, kind: 'depart' },
    { at: 170, kind: 'ofd' },
    { at: 230, kind: 'delivered' },
  ],
  'fail-attempt': [
    { at: 0, kind: 'label' },
    { at: 30, kind: 'pickup' },
    { at: 70, kind: 'arrive' },
    { at: 120, kind: 'ofd' },
    { at: 170, kind: 'attempt' },
    { at: 230, kind: 'ofd' },
    { at: 290, kind: 'delivered' },
  ],
  exception: [
    { at: 0, kind: 'label' },
    { at: 30, kind: 'pickup' },
    { at: 70, kind: 'arrive' },
    { at: 130, kind: 'exception' },
  ],
  // The carrier never finds the number: the tracking stays Pending (and the platform later expires it).
  'not-found': [],
};

/** Which journey a hash bucket (hash % 10) plays: 6 in 10 delivered, 2 with a failed attempt, 1 exception, 1 not found. */
const BUCKETS: JourneyName[] = [
  'delivered',
  'delivered',
  'delivered',
  'delivered',
  'delivered',
  'delivered',
  'fail-attempt',
  'fail-attempt',
  'exception',
  'not-found',
];

/** FNV-1a, 32 bit, then the murmur3 finaliser so numbers that differ in one digit spread over all buckets. */
export function hashNumber(tid: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < tid.length; i++) {
    h ^= tid.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export type Journey = {
  name: JourneyName;
  /** Per-number speed factor, 0.8–1.2, multiplied with the global pace. */
  factor: number;
  steps: Array<{ at: number; kind: StepKind }>;
  /** Index into the sandbox city lists. */
  place: number;
};

export function journeyFor(tid: string): Journey {
  const h = hashNumber(tid);
  const name = BUCKETS[h % 10]!;
  return { name, factor: 0.8 + ((h >>> 8) % 41) / 100, steps: JOURNEYS[name], place: (h >>> 16) % 997 };
}

/** Steps reached `elapsedMs` after the anchor, oldest first, each with its time offset in ms. */
export function reachedSteps(j: Journey, elapsedMs: number, pace: number): Array<{ kind: StepKind; offsetMs: number }> {
  const scale = 1000 * pace * j.factor;
  return j.steps.filter((s) => s.at * scale <= elapsedMs).map((s) => ({ kind: s.kind, offsetMs: Math.round(s.at * scale) }));
}

/** Total duration of a number's journey at a pace, in ms (0 for not-found). */
export function journeyDurationMs(tid: string, pace = 1): number {
  const j = journeyFor(tid);
  const last = j.steps[j.steps.length - 1];
  return last ? Math.round(last.at * 1000 * pace * j.factor) : 0;
}

/**
 * How often the refresh engine should poll sandbox numbers at a pace: about half the shortest gap between two
 * steps (30 s × 0.8 at pace 1), so every step is seen; never below 20 ms.
 */
export function sandboxPollIntervalMs(pace = 1): number {
  return Math.max(20, Math.round(12_000 * pace));
}

/** CARRIER_SANDBOX_PACE: a time multiplier (1 = a few minutes per journey, 0.01 = 100× faster). */
export function sandboxPaceFromEnv(env: NodeJS.ProcessEnv): number {
  const v = Number(env.CARRIER_SANDBOX_PACE);
  return Number.isFinite(v) && v > 0 ? v : 1;
}

/** For docs and support: what the sandbox will do with a number. */
export function describeSandboxJourney(tid: string, pace = 1): { journey: JourneyName; durationMs: number; steps: StepKind[] } {
  const j = journeyFor(tid);
  return { journey: j.name, durationMs: journeyDurationMs(tid, pace), steps: j.steps.map((s) => s.kind) };
}

/** A promised delivery window, in ms after the anchor; `first` is the original promise once it was revised. */
export type PromisedWindow = { fromMs: number; toMs: number; first: { fromMs: number; toMs: number } | null };

/**
 * The window the carrier promises `elapsedMs` after the anchor (decision 122): from a little before the parcel goes
 * out for delivery to a little after it is delivered. A failed attempt makes the carrier revise it to the second
 * round, past the first promise (the parcel is then likely late). Exceptions and unknown numbers promise nothing.
 */
export function promisedWindow(j: Journey, elapsedMs: number, pace: number): PromisedWindow | null {
  const scale = 1000 * pace * j.factor;
  const at = (kind: StepKind, nth = 0) => j.steps.filter((s) => s.kind === kind)[nth]?.at;
  const ofd = at('ofd');
  const delivered = at('delivered');
  if (ofd === undefined || delivered === undefined) return null;
  const attempt = at('attempt');
  // Whole seconds, as the carriers write times: the start rounded down, the end up (never narrower).
  const from = (s: number) => Math.floor((s * scale) / 1000) * 1000;
  const to = (s: number) => Math.ceil((s * scale) / 1000) * 1000;
  const first = { fromMs: from(ofd - 20), toMs: to((attempt ?? delivered) + 40) };
  if (attempt === undefined || elapsedMs < attempt * scale) return { ...first, first: null };
  const second = at('ofd', 1) ?? ofd;
  return { fromMs: from(second - 20), toMs: to(delivered + 40), first };
}
