// The predictor as the product uses it (issue 32, decision 122): learned from the platform's own delivered parcels,
// reloaded now and then in the background. The history comes from a loader the composition root hands in (the
// trackings module's query), so this file stays free of the database.
import { parseDay } from './days.ts';
import { DeliveryPredictor, type DeliveredFacts, type EstimatedDelivery, type ShipmentFacts } from './predictor.ts';

/** The delivered parcels of the carrier a late flag from history needs at least (decision 151). */
export const LATE_MIN_SAMPLES = 5;

/** Our history says the parcel will miss the carrier's date (decision 151): how many days such parcels usually take. */
export interface HistoryLate {
  /** Calendar days from the day shipped to the day our history predicts. */
  usualDays: number;
  /** The predicted chance of delivery after the carrier's date. */
  probability: number;
}

export interface DeliveryPredictions {
  /** Loads the history the first time (later reloads run in the background); never throws. */
  ready(): Promise<void>;
  /** The predicted estimate for a parcel; null when there is no delivered history at all. */
  predict(parcel: ShipmentFacts, now: Date): EstimatedDelivery | null;
  /**
   * Whether our history says the parcel will miss `parcel.carrierEstimate` (decision 139's late flag): null when it
   * says not, or knows fewer than LATE_MIN_SAMPLES delivered parcels of the carrier, or there is no estimate.
   */
  lateFromHistory(parcel: ShipmentFacts, now: Date): HistoryLate | null;
  /** Parcels learned from. */
  readonly samples: number;
}

export function createDeliveryPredictions(
  load: () => Promise<DeliveredFacts[]>,
  opts: { reloadMs?: number; now?: () => number; onError?: (err: unknown) => void } = {},
): DeliveryPredictions {
  const reloadMs = opts.reloadMs ?? 15 * 60_000;
  const now = opts.now ?? Date.now;
  let predictor = new DeliveryPredictor();
  let loadedAt = -Infinity;
  let loading: Promise<void> | null = null;

  function reload(): Promise<void> {
    loading ??= (async () => {
      try {
        const rows = await load();
        const next = new DeliveryPredictor();
        // In delivered order, as the history happened.
        rows.sort((a, b) => Date.parse(a.deliveredAt) - Date.parse(b.deliveredAt));
        for (const r of rows) {
          try {
            next.learn(r);
          } catch {
            /* a row with an unreadable date teaches nothing */
          }
        }
        predictor = next;
      } catch (err) {
        opts.onError?.(err);
      } finally {
        loadedAt = now();
        loading = null;
      }
    })();
    return loading;
  }

  return {
    async ready() {
      if (loadedAt === -Infinity) return reload();
      if (now() - loadedAt >= reloadMs) void reload();
    },
    predict(parcel, at) {
      if (predictor.samples === 0) return null;
      try {
        return predictor.predict(parcel, at.toISOString())?.estimatedDelivery ?? null;
      } catch {
        return null;
      }
    },
    lateFromHistory(parcel, at) {
      if (!parcel.carrierEstimate || predictor.carrierSamples(parcel) < LATE_MIN_SAMPLES) return null;
      try {
        const p = predictor.predict(parcel, at.toISOString());
        if (!p || !p.late || p.lateProbability === null) return null;
        const shipped = parseDay(parcel.shippedAt);
        const predicted = parseDay(p.estimatedDelivery.date);
        if (shipped === null || predicted === null) return null;
        return { usualDays: Math.max(0, predicted - shipped), probability: p.lateProbability };
      } catch {
        return null;
      }
    },
    get samples() {
      return predictor.samples;
    },
  };
}
