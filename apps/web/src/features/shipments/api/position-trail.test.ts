import { describe, expect, it } from 'vitest';
import { admit, batchKey, TRAIL_MAX, type TrailFix } from './position-trail';

// The trail kept on the courier's phone without signal is bounded (decision 149): one fix per half sharing
// interval, at most TRAIL_MAX, the oldest dropped first; each account's fixes apart.
const GAP = 15_000;
const t0 = Date.parse('2026-11-27T09:00:00Z');
/** The i-th fix, taken and kept 30 s after the one before. */
const fix = (i: number, account = 'courier-a'): TrailFix => ({
  account,
  lat: 30 + i / 1000,
  lng: -97,
  takenAt: new Date(t0 + i * 30_000).toISOString(),
  keptAt: new Date(t0 + i * 30_000 + 500).toISOString(),
});
const at = (ms: number) => new Date(t0 + ms).toISOString();
/** Offers fixes one by one and keeps what `admit` says, as the store does. */
function keepAll(offered: TrailFix[], cap = TRAIL_MAX): TrailFix[] {
  let kept: TrailFix[] = [];
  for (const f of offered) {
    const { keep, drop } = admit(kept, f, GAP, cap);
    if (!keep) continue;
    kept = [...kept.filter((k) => !drop.includes(k)), f];
  }
  return kept;
}

describe('the trail kept on the phone', () => {
  it('keeps every fix a sharing interval apart, in order', () => {
    const offered = [0, 1, 2].map((i) => fix(i));
    expect(keepAll(offered)).toEqual(offered);
  });

  it('keeps at most one fix per half interval of keeping, and never the same fix twice or an older one', () => {
    const a = fix(0);
    // Another tab sharing too keeps a fix 10 s later: not kept.
    expect(admit([a], { ...fix(1), keptAt: at(GAP - 1) }, GAP)).toEqual({ keep: false, drop: [] });
    // The same fix offered again later, or one taken before the newest kept: not kept.
    expect(admit([a], { ...a, keptAt: at(60_000) }, GAP)).toEqual({ keep: false, drop: [] });
    expect(admit([a], { ...fix(1), takenAt: at(-60_000), keptAt: at(60_000) }, GAP)).toEqual({ keep: false, drop: [] });
    // A fix taken two seconds after the last one, kept when the interval has passed (the freshest at that moment).
    expect(admit([a], { ...fix(1), takenAt: at(2_000), keptAt: at(30_500) }, GAP).keep).toBe(true);
  });

  it(`keeps at most ${TRAIL_MAX}, dropping the oldest first`, () => {
    const offered = Array.from({ length: TRAIL_MAX + 7 }, (_, i) => fix(i));
    const kept = keepAll(offered);
    expect(kept).toHaveLength(TRAIL_MAX);
    expect(kept[0]).toEqual(offered[7]);
    expect(kept.at(-1)).toEqual(offered.at(-1));
    expect(admit(kept, fix(TRAIL_MAX + 7), GAP).drop).toEqual([offered[7]]);
  });

  it("counts each account's fixes apart: another courier on the same phone neither blocks nor drops them", () => {
    const a = [fix(0), fix(1), fix(2)];
    const b = fix(2, 'courier-b');
    expect(admit(a, b, GAP, 3)).toEqual({ keep: true, drop: [] });
    expect(admit([...a, b], fix(3), GAP, 3)).toEqual({ keep: true, drop: [a[0]] });
  });

  it('names a batch by its account, first and last time and size: the same batch again has the same key', () => {
    const batch = [fix(0), fix(1), fix(2)];
    expect(batchKey(batch)).toBe(batchKey([...batch]));
    expect(batchKey(batch)).not.toBe(batchKey([...batch, fix(3)]));
    expect(batchKey(batch)).toContain('courier-a');
  });
});
