// Replays a delivery history in shipped order and scores the predictor against baselines. Each parcel is
// predicted from the parcels delivered before it shipped, and from nothing else: parcels wait in a queue
// ordered by delivery and are learned only once their delivered_at is before the current shipped_at.
import { type BusinessCalendar } from './calendar.ts';
import { type ParsedTimestamp } from './days.ts';
import { DeliveryPredictor, defaultCalendar, type DeliveryPrediction, type PredictorOptions } from './predictor.ts';
import { postalAreas } from './postal.ts';
import { weekday } from './days.ts';

export interface HistoryRow {
  /** Where the row is, for messages (1 = the header). */
  line: number;
  shippedAt: string;
  deliveredAt: string;
  shipped: ParsedTimestamp;
  delivered: ParsedTimestamp;
  carrier: string;
  service: string;
  originPostal: string;
  destinationPostal: string;
  carrierEstimate: string;
  /** The estimate's day, or null when the row has none. */
  estimateDay: number | null;
}

export interface Scores {
  n: number;
  exactDay: number | null;
  withinWindow: number | null;
  meanWindowDays: number | null;
  maeDays: number | null;
  lateFlagPrecision: number | null;
  lateFlagRecall: number | null;
}

/** One method's guess for a row, in calendar days. */
interface Guess {
  date: number;
  from: number;
  to: number;
  late: boolean | null;
}

class Tally {
  n = 0;
  exact = 0;
  within = 0;
  width = 0;
  absError = 0;
  flagged = 0;
  truePositive = 0;
  late = 0;

  add(g: Guess | null, row: HistoryRow): void {
    if (!g) return;
    const d = row.delivered.day;
    this.n++;
    if (g.date === d) this.exact++;
    if (g.from <= d && d <= g.to) this.within++;
    this.width += g.to - g.from + 1;
    this.absError += Math.abs(g.date - d);
    if (row.estimateDay !== null) {
      const late = d > row.estimateDay;
      if (late) this.late++;
      if (g.late) {
        this.flagged++;
        if (late) this.truePositive++;
      }
    }
  }

  scores(): Scores {
    const share = (x: number, of: number) => (of > 0 ? round(x / of) : null);
    return {
      n: this.n,
      exactDay: share(this.exact, this.n),
      withinWindow: share(this.within, this.n),
      meanWindowDays: share(this.width, this.n),
      maeDays: share(this.absError, this.n),
      lateFlagPrecision: share(this.truePositive, this.flagged),
      lateFlagRecall: share(this.truePositive, this.late),
    };
  }
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

/** Counts of calendar-day transit times, for the baselines. */
class Counts {
  n = 0;
  readonly counts: number[] = [];
  add(t: number): void {
    this.n++;
    this.counts[t] = (this.counts[t] ?? 0) + 1;
  }
  /** The smallest t with at least q of the counts at or below it. */
  quantile(q: number): number {
    const need = q * this.n;
    let cum = 0;
    for (let t = 0; t < this.counts.length; t++) {
      cum += this.counts[t] ?? 0;
      if (cum >= need - 1e-9) return t;
    }
    return this.counts.length - 1;
  }
}

const MAX_TRANSIT_DAYS = 365;

/** Symmetric percentile windows tried for the "percentile window reaching 90%" reference. */
const PERCENTILE_WINDOWS = [10, 7.5, 5, 4, 3, 2.5, 2, 1.5, 1, 0.5] as const;

/** A binary min-heap by a numeric key. */
class MinHeap<T> {
  private readonly items: T[] = [];
  private readonly key: (item: T) => number;
  constructor(key: (item: T) => number) {
    this.key = key;
  }
  peek(): T | undefined {
    return this.items[0];
  }
  push(item: T): void {
    const h = this.items;
    h.push(item);
    for (let i = h.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (this.key(h[parent]!) <= this.key(h[i]!)) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }
  pop(): T | undefined {
    const h = this.items;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last !== undefined) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.key(h[l]!) < this.key(h[m]!)) m = l;
        if (r < h.length && this.key(h[r]!) < this.key(h[m]!)) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }
}

interface Pending {
  row: HistoryRow;
  prediction: DeliveryPrediction | null;
}

export type WindowScores = Scores & { percentiles: [number, number] | null };

export interface EvaluationReport extends Scores {
  rows: number;
  /** Rows naming a service: the predictor and the lane baselines key by it (decision 166); 0, and no run shows what it does. */
  rowsWithService: number;
  calendar: string;
  baselines: {
    carrierEstimate: Scores;
    globalMedian: Scores;
    laneWeekdayMedian: Scores;
    /**
     * The lane-and-weekday median with the narrowest symmetric percentile window (P10–P90, P7.5–P92.5, … P0.5–P99.5)
     * that held ≥ 90% of deliveries, picked in hindsight; percentiles null when none did (then the widest is shown).
     */
    laneWeekdayWindow90: WindowScores;
    /** The same with the global distribution. */
    globalWindow90: WindowScores;
  };
}

export interface EvaluatorOptions extends PredictorOptions {
  /** A name for the calendar in the report. */
  calendarName?: string;
}

export class Evaluator {
  readonly predictor: DeliveryPredictor;
  /** Parcels not yet learned, by delivery. */
  private readonly pending = new MinHeap<Pending>((p) => p.row.delivered.instant);
  /** Predicted parcels by the last day of their window, to tell the predictor of those still out after it. */
  private readonly windowsOpen = new MinHeap<Pending>((p) => p.prediction!.trace.window![1]);
  private readonly estimatesOpen = new MinHeap<Pending>((p) => p.row.estimateDay!);
  private readonly ours = new Tally();
  private readonly carrier = new Tally();
  private readonly global = new Tally();
  private readonly lane = new Tally();
  private readonly windows = PERCENTILE_WINDOWS.map(() => new Tally());
  private readonly globalWindows = PERCENTILE_WINDOWS.map(() => new Tally());
  private readonly globalCounts = new Counts();
  private readonly laneCounts = new Map<string, Counts>();
  private rows = 0;
  private rowsWithService = 0;
  private lastShipped = -Infinity;
  private readonly calendarName: string;

  constructor(options: EvaluatorOptions = {}) {
    this.predictor = new DeliveryPredictor(options);
    this.calendarName = options.calendarName ?? (options.calendar ? 'custom' : 'auto (US; Canada by province for Canadian postal codes)');
  }

  private laneKey(row: HistoryRow): string {
    const o = postalAreas(row.originPostal).area;
    const d = postalAreas(row.destinationPostal).area;
    return `${row.carrier.toLowerCase()}|${row.service.toLowerCase()}|${o}>${d}|${weekday(row.shipped.day)}`;
  }

  /** Learn every pending parcel delivered before `instant`. */
  private catchUp(instant: number): void {
    for (let next = this.pending.peek()?.row; next && next.delivered.instant < instant; next = this.pending.peek()?.row) {
      const { row, prediction } = this.pending.pop()!;
      this.predictor.learn(row, prediction);
      const t = Math.min(MAX_TRANSIT_DAYS, row.delivered.day - row.shipped.day);
      this.globalCounts.add(t);
      const key = this.laneKey(row);
      let c = this.laneCounts.get(key);
      if (!c) this.laneCounts.set(key, (c = new Counts()));
      c.add(t);
    }
  }

  /**
   * Score one row (rows must come in shipped_at order), then queue it to be learned once delivered. Returns the
   * predictor's prediction for it.
   */
  add(row: HistoryRow): DeliveryPrediction | null {
    if (row.shipped.instant < this.lastShipped) throw new RangeError(`line ${row.line}: rows are not in shipped_at order`);
    this.lastShipped = row.shipped.instant;
    this.rows++;
    if (row.service.trim() !== '') this.rowsWithService++;
    this.catchUp(row.shipped.instant);
    const s = row.shipped.day;
    // Parcels whose window ended before today and that are still out have missed it: say so now, not when
    // they are finally delivered (the window's calibration would otherwise hear of its late misses late).
    for (let open = this.windowsOpen.peek(); open && open.prediction!.trace.window![1] < s; open = this.windowsOpen.peek()) {
      this.windowsOpen.pop();
      if (open.row.delivered.instant >= row.shipped.instant) this.predictor.overdue(open.prediction!);
    }

    // Parcels whose estimate passed before today and that are still out are late: the late model hears it now.
    for (let open = this.estimatesOpen.peek(); open && open.row.estimateDay! < s; open = this.estimatesOpen.peek()) {
      this.estimatesOpen.pop();
      if (open.row.delivered.instant >= row.shipped.instant) this.predictor.estimatePassed(open.prediction!);
    }
    const prediction = this.predictor.predict(row);
    if (prediction) {
      const e = prediction.estimatedDelivery;
      const day = (iso: string) => Math.round(Date.parse(`${iso}T00:00:00Z`) / 86_400_000);
      this.ours.add({ date: day(e.date), from: day(e.from), to: day(e.to), late: prediction.late }, row);
    }

    if (row.estimateDay !== null) this.carrier.add({ date: row.estimateDay, from: row.estimateDay, to: row.estimateDay, late: false }, row);

    const g = this.globalCounts;
    if (g.n > 0) {
      const globalLate = row.estimateDay !== null && s + g.quantile(0.8) > row.estimateDay;
      this.global.add({ date: s + g.quantile(0.5), from: s + g.quantile(0.1), to: s + g.quantile(0.9), late: globalLate }, row);
      PERCENTILE_WINDOWS.forEach((pct, i) => {
        this.globalWindows[i]!.add(
          { date: s + g.quantile(0.5), from: s + g.quantile(pct / 100), to: s + g.quantile(1 - pct / 100), late: globalLate },
          row,
        );
      });
      const laneCounts = this.laneCounts.get(this.laneKey(row));
      const c = laneCounts && laneCounts.n > 0 ? laneCounts : g;
      const late = row.estimateDay !== null && s + c.quantile(0.8) > row.estimateDay;
      const median = s + c.quantile(0.5);
      this.lane.add({ date: median, from: s + c.quantile(0.1), to: s + c.quantile(0.9), late }, row);
      PERCENTILE_WINDOWS.forEach((pct, i) => {
        this.windows[i]!.add({ date: median, from: s + c.quantile(pct / 100), to: s + c.quantile(1 - pct / 100), late }, row);
      });
    }
    const item = { row, prediction };
    this.pending.push(item);
    if (prediction?.trace.window) this.windowsOpen.push(item);
    if (prediction?.trace.lateInputs && row.estimateDay !== null) this.estimatesOpen.push(item);
    return prediction;
  }

  report(): EvaluationReport {
    const window90 = (tallies: Tally[]): WindowScores => {
      for (let i = 0; i < PERCENTILE_WINDOWS.length; i++) {
        const s = tallies[i]!.scores();
        if ((s.withinWindow ?? 0) >= 0.9) return { ...s, percentiles: [PERCENTILE_WINDOWS[i]!, 100 - PERCENTILE_WINDOWS[i]!] };
      }
      return { ...tallies.at(-1)!.scores(), percentiles: null };
    };
    return {
      ...this.ours.scores(),
      rows: this.rows,
      rowsWithService: this.rowsWithService,
      calendar: this.calendarName,
      baselines: {
        carrierEstimate: this.carrier.scores(),
        globalMedian: this.global.scores(),
        laneWeekdayMedian: this.lane.scores(),
        laneWeekdayWindow90: window90(this.windows),
        globalWindow90: window90(this.globalWindows),
      },
    };
  }
}

export type { BusinessCalendar };
export { defaultCalendar };
