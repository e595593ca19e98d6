// The predictor as the product uses it (issue 32, decision 122): learned from the platform's own delivered parcels,
// reloaded now and then in the background. The history comes from a loader the composition root hands in (the
// trackings module's query), so this file stays free of the database.
import { DeliveryPredictor, type DeliveredFacts, type EstimatedDelivery, type ShipmentFacts } from './predictor.ts';

export interface DeliveryPredictions {
  /** Loads the history the first time (later reloads run in the background); never throws. */
  ready(): Promise<void>;
  /** The predicted estimate for a parcel; null when there is no delivered history at all. */
  predict(parcel: ShipmentFacts, now: Date): EstimatedDelivery | null;
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
    get samples() {
      return predictor.samples;
    },
  };
}
