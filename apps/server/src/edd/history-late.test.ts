// The predictions' late verdict on a carrier's date (decision 151): what "likely late from history" stands on.
import { describe, expect, it } from 'vitest';
import { createDeliveryPredictions, LATE_MIN_SAMPLES } from './history.ts';

describe('lateFromHistory', () => {
  const DAY = 86_400_000;
  const shipped = Date.parse('2026-11-02T15:00:00Z');
  const history = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      carrier: 'ups',
      shippedAt: new Date(shipped - (40 - i) * DAY).toISOString(),
      deliveredAt: new Date(shipped - (40 - i) * DAY + 14 * DAY).toISOString(),
    }));
  const parcel = (carrierEstimate: string) => ({ carrier: 'ups', shippedAt: new Date(shipped).toISOString(), carrierEstimate });

  it('says late, with the calendar days such parcels take, when the carrier promises sooner than they arrive', async () => {
    const p = createDeliveryPredictions(async () => history(LATE_MIN_SAMPLES + 3));
    await p.ready();
    const late = p.lateFromHistory(parcel('2026-11-04'), new Date(shipped));
    // Ten business days (what 14 calendar days were) from Mon 2 Nov, past Veterans Day (11 Nov): Tue 17 Nov.
    expect(late).toMatchObject({ usualDays: 15 });
    expect(late!.probability).toBeGreaterThan(0.5);
    expect(p.lateFromHistory(parcel('2026-11-25'), new Date(shipped))).toBeNull();
  });

  it('says nothing with fewer than LATE_MIN_SAMPLES parcels behind it, or without a carrier date', async () => {
    const few = createDeliveryPredictions(async () => history(LATE_MIN_SAMPLES - 1));
    await few.ready();
    expect(few.lateFromHistory(parcel('2026-11-04'), new Date(shipped))).toBeNull();
    const many = createDeliveryPredictions(async () => history(LATE_MIN_SAMPLES + 3));
    await many.ready();
    expect(many.lateFromHistory({ carrier: 'ups', shippedAt: new Date(shipped).toISOString() }, new Date(shipped))).toBeNull();
  });
});
