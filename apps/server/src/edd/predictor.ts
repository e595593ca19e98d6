// The estimated-delivery-date predictor (issue 32): learned incrementally from delivered parcels, no I/O.
//
// Transit is counted in business days of the destination's calendar, in a histogram per cell of
// (carrier, service, origin ZIP3/FSA, destination ZIP3/FSA, weekday shipped). A cell's distribution is shrunk
// toward its parent's (the service on the lane on that weekday → the service on the lane → the lane on that
// weekday, any service → the lane → first digit/letter of each → the carrier's service → carrier → everything):
// p = (counts + m·p_parent) / (n + m), so a lane with few parcels leans on its wider area and one with many speaks
// for itself, and a service with few parcels on a lane leans on the lane's parcels of every service (decision 166). When the carrier gives an estimate, the same hierarchy learns how many business
// days the delivery falls after (or before) it, and the two distributions are multiplied (a product of experts,
// the estimate's weight β picked online by which weight predicted the parcels delivered so far best). The date
// is the likeliest day within the middle half of the result; the window is the narrowest run of days holding the
// wanted share of it, and that share is adjusted online from the windows' own past coverage (adaptive conformal
// inference), so that about `coverage` of deliveries land inside. The chance of missing the estimate is
// recalibrated by an online logistic model that also reads how often estimates were missed lately (late parcels
// count as soon as their estimate passes undelivered: `estimatePassed`), since late parcels come in spells (decision 139).
import { addBusinessDays, businessDaysBetween, calendarFor, type BusinessCalendar } from './calendar.ts';
import { isoDate, parseDay, parseTimestamp, weekday } from './days.ts';
import { canadianProvince, destinationCountry, postalAreas } from './postal.ts';

/** What is known of a parcel when it ships. */
export interface ShipmentFacts {
  carrier: string;
  service?: string | null;
  originPostal?: string | null;
  destinationPostal?: string | null;
  /** ISO 8601; without a zone it is UTC. Its calendar day is the day shipped. */
  shippedAt: string;
  /** The carrier's (or merchant's) promised date: a date or date-time, or empty. */
  carrierEstimate?: string | null;
}

/** A parcel that was delivered. */
export interface DeliveredFacts extends ShipmentFacts {
  /** ISO 8601; its calendar day is the day delivered. */
  deliveredAt: string;
}

/** The product field (issue 32). Dates are YYYY-MM-DD. */
export interface EstimatedDelivery {
  date: string;
  from: string;
  to: string;
  /** "carrier": the carrier's date as given (no history yet); "predicted": this predictor's. */
  source: 'carrier' | 'predicted';
  /** ISO 8601 date-time of the prediction. */
  updatedAt: string;
}

/** Opaque to callers: what `learn` needs to calibrate the predictor on the parcel it was made for. */
export interface PredictionTrace {
  readonly shippedDay: number;
  readonly calendar: BusinessCalendar;
  readonly transit: Float64Array | null;
  readonly estimateExpert: Float64Array | null;
  readonly window: readonly [number, number] | null;
  /** The late model's inputs when the parcel shipped (null without an estimate). */
  readonly lateInputs: readonly number[] | null;
}

export interface DeliveryPrediction {
  estimatedDelivery: EstimatedDelivery;
  /** Raised when the prediction says the parcel will miss `carrierEstimate`. */
  late: boolean;
  /** The predicted chance of delivery after `carrierEstimate`; null without an estimate or without history. */
  lateProbability: number | null;
  /** The share of the distribution the window was built to hold (the calibrated level). */
  windowLevel: number;
  /** The narrowest level of the hierarchy with parcels behind it, and how many. */
  basis: { level: Level; samples: number };
  readonly trace: PredictionTrace;
}

export type Level = 'global' | 'carrier' | 'service' | 'region' | 'lane' | 'lane-weekday' | 'service-lane' | 'service-lane-weekday';
/** The hierarchy, widest first; the levels named "service" are left out for a parcel of no known service (decision 166). */
const LEVELS: readonly Level[] = ['global', 'carrier', 'service', 'region', 'lane', 'lane-weekday', 'service-lane', 'service-lane-weekday'];

export interface PredictorOptions {
  /** The business-day calendar of a destination. Default: Canada's (by province) for a Canadian postal code, else the US. */
  calendar?: (destinationPostal: string) => BusinessCalendar;
  /** Pseudo-parcels a cell borrows from its parent (m). Default 6. */
  priorStrength?: number;
  /** The share of deliveries the window should hold. Default 0.9. */
  coverage?: number;
  /** Adjust the window's level from its own past coverage. Default true. */
  calibrate?: boolean;
  /** Step of that adjustment per delivery. Default 0.005. */
  calibrationStep?: number;
  /**
   * The calibration aims this much above `coverage`, for safety: misses while the level is at its cap (early
   * parcels predicted from little history, a peak season) are not owed back. Default 0.02.
   */
  calibrationMargin?: number;
  /**
   * `late` when the chance of missing the estimate reaches this. Default: learned online, the threshold of
   * 0.1, 0.15, … 0.7 that best flagged (F1) the parcels delivered so far, starting at 0.5.
   */
  lateThreshold?: number;
  /** Longest transit kept, in business days (longer ones count as this). Default 60. */
  maxBusinessDays?: number;
  /**
   * Forget old parcels: a parcel delivered this many days before the day predicted for weighs half as much.
   * Default: never (every parcel weighs the same).
   */
  halfLifeDays?: number;
}

/** The calendar for a destination when none is given: Canada's by province, else the US federal one. */
export function defaultCalendar(destinationPostal: string): BusinessCalendar {
  return destinationCountry(destinationPostal) === 'CA' ? calendarFor('CA', canadianProvince(destinationPostal)) : calendarFor('US');
}

class Cell {
  /** Parcels, each counted once. */
  count = 0;
  /** Parcels by weight (with halfLifeDays, in units of the weight at the anchor day). */
  n = 0;
  nErr = 0;
  readonly transit: Float64Array;
  readonly error: Float64Array;
  constructor(size: number) {
    this.transit = new Float64Array(size + 1);
    this.error = new Float64Array(2 * size + 1);
  }
}

const LATE_THRESHOLDS = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7] as const;
const ESTIMATE_WEIGHTS = [0.5, 0, 0.25, 0.75, 1] as const;
const FLOOR = 1e-4;
/** The late model: the recent rate forgets an outcome's weight by this per later outcome (about the last 50 count). */
const RECENT_DECAY = 0.98;
/** The late model's learning rate (stochastic gradient on the log-loss of each outcome). */
const LATE_RATE = 0.05;
const logit = (p: number) => Math.log(Math.min(0.999, Math.max(0.001, p)) / (1 - Math.min(0.999, Math.max(0.001, p))));
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const dot = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

function fail(message: string): never {
  throw new RangeError(message);
}

function dayOf(text: string, field: string): number {
  return parseDay(text) ?? fail(`${field} is not an ISO 8601 date: ${JSON.stringify(text)}`);
}

export class DeliveryPredictor {
  private readonly cells = new Map<string, Cell>();
  private readonly m: number;
  private readonly target: number;
  private readonly calibrate: boolean;
  private readonly step: number;
  private readonly fixedLateThreshold: number | null;
  private readonly margin: number;
  /** Per candidate late threshold: [flagged and late, flagged, late] over the delivered parcels. */
  private readonly lateCounts = LATE_THRESHOLDS.map(() => [0, 0, 0]);
  private readonly size: number;
  private readonly calendarOf: (destinationPostal: string) => BusinessCalendar;
  private level: number;
  private readonly halfLife: number;
  /** The day whose weight is 1 (with halfLifeDays). */
  private anchor: number | null = null;
  /** Predictions whose window's miss was already counted (by `overdue`). */
  private readonly missCounted = new WeakSet<PredictionTrace>();
  /** Parcels whose estimate passed undelivered, already told to the late model (by `estimatePassed`). */
  private readonly lateCounted = new WeakSet<PredictionTrace>();
  /** Recent outcomes against the estimate, decayed per outcome: [late, all]. */
  private recentLate = 0;
  private recentAll = 0;
  /** Logistic recalibration of the chance of missing the estimate: bias, logit(model's chance), logit(recent rate). */
  private readonly lateWeights = [0, 1, 0];
  /** Negative log-likelihood of the delivered parcels under each estimate weight. */
  private readonly weightLoss = ESTIMATE_WEIGHTS.map(() => 0);

  constructor(options: PredictorOptions = {}) {
    this.m = options.priorStrength ?? 6;
    this.target = options.coverage ?? 0.9;
    this.level = this.target;
    this.calibrate = options.calibrate ?? true;
    this.step = options.calibrationStep ?? 0.005;
    this.fixedLateThreshold = options.lateThreshold ?? null;
    this.margin = options.calibrationMargin ?? 0.02;
    this.size = options.maxBusinessDays ?? 60;
    this.calendarOf = options.calendar ?? defaultCalendar;
    this.halfLife = options.halfLifeDays ?? Infinity;
  }

  /** Parcels learned so far. */
  get samples(): number {
    return this.cells.get('')?.count ?? 0;
  }

  /** Delivered parcels learned of the parcel's carrier (decision 151: how much history a late flag stands on). */
  carrierSamples(parcel: Pick<ShipmentFacts, 'carrier'>): number {
    return this.cells.get(parcel.carrier.trim().toLowerCase())?.count ?? 0;
  }

  /** The chance of missing the estimate at which `late` is raised (fixed, or the best so far). */
  get lateThreshold(): number {
    if (this.fixedLateThreshold !== null) return this.fixedLateThreshold;
    let best = 0.5;
    let bestF1 = 0;
    LATE_THRESHOLDS.forEach((t, i) => {
      const [tp, flagged, late] = this.lateCounts[i]!;
      const f1 = flagged! + late! > 0 ? (2 * tp!) / (flagged! + late!) : 0;
      if (f1 > bestF1) [best, bestF1] = [t, f1];
    });
    return best;
  }

  /** The window's current level (the share of the distribution it is built to hold; past 1: all of it). */
  get windowLevel(): number {
    return this.level;
  }

  /** The parcel's cell at each of LEVELS (null: a service level for a parcel of no known service). */
  private keys(f: ShipmentFacts, shippedDay: number): (string | null)[] {
    const o = postalAreas(f.originPostal);
    const d = postalAreas(f.destinationPostal);
    const c = f.carrier.trim().toLowerCase();
    const service = (f.service ?? '').trim().toLowerCase();
    const wd = weekday(shippedDay);
    const lane = `${c}|l:${o.area}>${d.area}`;
    const s = service ? `s:${service}` : null;
    return [
      '',
      c,
      s && `${c}|${s}`,
      `${c}|r:${o.region}>${d.region}`,
      lane,
      `${lane}|${wd}`,
      s && `${lane}|${s}`,
      s && `${lane}|${s}|${wd}`,
    ];
  }

  /** Learn from a delivered parcel; pass the prediction made for it when it shipped to calibrate on it. */
  learn(parcel: DeliveredFacts, madeWhenShipped?: DeliveryPrediction | null): void {
    const shippedDay = dayOf(parcel.shippedAt, 'shippedAt');
    const deliveredDay = dayOf(parcel.deliveredAt, 'deliveredAt');
    const cal = this.calendarOf(parcel.destinationPostal ?? '');
    const k = Math.min(this.size, Math.max(0, businessDaysBetween(cal, shippedDay, deliveredDay)));
    const estimateDay = parcel.carrierEstimate ? parseDay(parcel.carrierEstimate) : null;
    const r =
      estimateDay === null ? null : Math.min(this.size, Math.max(-this.size, k - businessDaysBetween(cal, shippedDay, estimateDay)));
    const w = this.weight(deliveredDay);
    for (const key of this.keys(parcel, shippedDay)) {
      if (key === null) continue;
      let cell = this.cells.get(key);
      if (!cell) this.cells.set(key, (cell = new Cell(this.size)));
      cell.count++;
      cell.n += w;
      cell.transit[k]! += w;
      if (r !== null) {
        cell.nErr += w;
        cell.error[r + this.size]! += w;
      }
    }
    const trace = madeWhenShipped?.trace;
    if (!trace) return;
    if (trace.window && !this.missCounted.has(trace)) {
      this.calibrateWindow(deliveredDay < trace.window[0] || deliveredDay > trace.window[1]);
    }
    if (estimateDay !== null && madeWhenShipped.lateProbability !== null) {
      const late = deliveredDay > estimateDay;
      if (!this.lateCounted.has(trace)) this.lateOutcome(trace, late);
      LATE_THRESHOLDS.forEach((t, i) => {
        const c = this.lateCounts[i]!;
        const flagged = madeWhenShipped.lateProbability! >= t;
        if (flagged && late) c[0]!++;
        if (flagged) c[1]!++;
        if (late) c[2]!++;
      });
    }
    if (trace.transit && trace.estimateExpert) {
      ESTIMATE_WEIGHTS.forEach((beta, i) => {
        const p = combine(trace.transit!, trace.estimateExpert, beta);
        this.weightLoss[i]! -= Math.log(Math.max(p[k]!, 1e-9));
      });
    }
  }

  /**
   * Tell the predictor that a parcel is still not delivered after its carrier estimate: it is late, and the late
   * model hears of it now (a spell of late parcels shows before they are delivered), not again when learned.
   */
  estimatePassed(madeWhenShipped: DeliveryPrediction): void {
    const trace = madeWhenShipped.trace;
    if (!trace.lateInputs || this.lateCounted.has(trace)) return;
    this.lateCounted.add(trace);
    this.lateOutcome(trace, true);
  }

  private lateOutcome(trace: PredictionTrace, late: boolean): void {
    const y = late ? 1 : 0;
    this.recentLate = RECENT_DECAY * this.recentLate + y;
    this.recentAll = RECENT_DECAY * this.recentAll + 1;
    const x = trace.lateInputs;
    if (!x) return;
    const err = y - sigmoid(dot(this.lateWeights, x));
    for (let i = 0; i < x.length; i++) this.lateWeights[i]! += LATE_RATE * err * x[i]!;
  }

  /** A parcel's weight on a day (1 without halfLifeDays); moves the anchor before the weights grow too large. */
  private weight(day: number): number {
    if (this.halfLife === Infinity) return 1;
    if (this.anchor === null) this.anchor = day;
    if (day - this.anchor > 200 * this.halfLife) {
      const scale = Math.pow(2, -(day - this.anchor) / this.halfLife);
      for (const cell of this.cells.values()) {
        cell.n *= scale;
        cell.nErr *= scale;
        for (let i = 0; i < cell.transit.length; i++) cell.transit[i]! *= scale;
        for (let i = 0; i < cell.error.length; i++) cell.error[i]! *= scale;
      }
      this.anchor = day;
    }
    return Math.pow(2, (day - this.anchor) / this.halfLife);
  }

  private calibrateWindow(missed: boolean): void {
    if (!this.calibrate) return;
    // Capped at 0.999: letting it pass 1 (whole-support windows, the misses "owed back" later) keeps the long-run
    // share exactly but measured far wider windows for a long time after a bad spell.
    this.level = Math.min(0.999, Math.max(0.5, this.level + this.step * ((missed ? 1 : 0) - (1 - this.target - this.margin))));
  }

  /**
   * Tell the predictor that a parcel is still not delivered after the last day of the window predicted for it:
   * its miss counts at once (and not again when it is learned), so the window's calibration hears of late
   * misses when they happen.
   */
  overdue(madeWhenShipped: DeliveryPrediction): void {
    const trace = madeWhenShipped.trace;
    if (!trace.window || this.missCounted.has(trace)) return;
    this.missCounted.add(trace);
    this.calibrateWindow(true);
  }

  /** Shrink a cell's histogram toward its parents' (returns null when nothing was learned). */
  private shrunk(
    keys: (string | null)[],
    now: number,
    pick: (c: Cell) => [number, Float64Array],
  ): { p: Float64Array; level: Level; samples: number } | null {
    let p: Float64Array | null = null;
    let level: Level = 'global';
    let samples = 0;
    // Weights in units of a parcel delivered today, so that the prior strength keeps its meaning.
    const unit = this.halfLife === Infinity || this.anchor === null ? 1 : Math.pow(2, (now - this.anchor) / this.halfLife);
    keys.forEach((key, i) => {
      const cell = key === null ? undefined : this.cells.get(key);
      if (!cell) return;
      const [weighed, hist] = pick(cell);
      if (weighed === 0) return;
      const n = weighed / unit;
      if (!p) {
        p = hist.map((x) => x / weighed);
      } else {
        const q: Float64Array = p;
        p = hist.map((x, j) => (x / unit + this.m * q[j]!) / (n + this.m));
      }
      level = LEVELS[i]!;
      samples = cell.count;
    });
    return p ? { p, level, samples } : null;
  }

  /** Predict the delivery of a parcel from what was learned so far; null with no history and no estimate. */
  predict(parcel: ShipmentFacts, now?: string): DeliveryPrediction | null {
    const shippedDay = dayOf(parcel.shippedAt, 'shippedAt');
    const updatedAt = new Date(parseTimestamp(now ?? parcel.shippedAt)?.instant ?? fail('now is not an ISO 8601 date')).toISOString();
    const estimateDay = parcel.carrierEstimate ? dayOf(parcel.carrierEstimate, 'carrierEstimate') : null;
    const cal = this.calendarOf(parcel.destinationPostal ?? '');
    const keys = this.keys(parcel, shippedDay);
    const transit = this.shrunk(keys, shippedDay, (c) => [c.n, c.transit]);
    if (!transit) {
      if (estimateDay === null) return null;
      const date = isoDate(estimateDay);
      return {
        estimatedDelivery: { date, from: date, to: date, source: 'carrier', updatedAt },
        late: false,
        lateProbability: null,
        windowLevel: this.level,
        basis: { level: 'global', samples: 0 },
        trace: { shippedDay, calendar: cal, transit: null, estimateExpert: null, window: null, lateInputs: null },
      };
    }

    // The estimate's expert: P(k) = P(error = k − business days to the estimate).
    let expert: Float64Array | null = null;
    if (estimateDay !== null) {
      const err = this.shrunk(keys, shippedDay, (c) => [c.nErr, c.error]);
      if (err) {
        const kE = businessDaysBetween(cal, shippedDay, estimateDay);
        expert = new Float64Array(this.size + 1);
        for (let k = 0; k <= this.size; k++) {
          const i = k - kE + this.size;
          expert[k] = i >= 0 && i < err.p.length ? err.p[i]! : 0;
        }
      }
    }
    const best = this.weightLoss.indexOf(Math.min(...this.weightLoss));
    const p = combine(transit.p, expert, ESTIMATE_WEIGHTS[best]!);

    // The calendar day of each business-day count.
    const dates = new Array<number>(this.size + 1);
    dates[0] = shippedDay;
    for (let k = 1; k <= this.size; k++) dates[k] = addBusinessDays(cal, dates[k - 1]!, 1);
    const [point, lo, hi] = pointAndWindow(p, dates, Math.min(1, this.level) - 1e-9);

    let lateProbability: number | null = null;
    let lateInputs: number[] | null = null;
    if (estimateDay !== null) {
      let raw = 0;
      for (let k = 0; k <= this.size; k++) if (dates[k]! > estimateDay) raw += p[k]!;
      lateInputs = [1, logit(raw), logit((this.recentLate + 0.5) / (this.recentAll + 1))];
      lateProbability = sigmoid(dot(this.lateWeights, lateInputs));
    }
    return {
      estimatedDelivery: {
        date: isoDate(dates[point]!),
        from: isoDate(dates[lo]!),
        to: isoDate(dates[hi]!),
        source: 'predicted',
        updatedAt,
      },
      late: lateProbability !== null && lateProbability >= this.lateThreshold,
      lateProbability,
      windowLevel: this.level,
      basis: { level: transit.level, samples: transit.samples },
      trace: { shippedDay, calendar: cal, transit: transit.p, estimateExpert: expert, window: [dates[lo]!, dates[hi]!], lateInputs },
    };
  }
}

/**
 * The date and window of a distribution over business-day counts (`dates`: the calendar day of each): the date is
 * the likeliest day within the middle half (between the quartiles); the window the narrowest run of days (in
 * calendar days) that holds `level` of it, stretched to hold the date.
 */
function pointAndWindow(p: Float64Array, dates: number[], level: number): [point: number, lo: number, hi: number] {
  const last = p.length - 1;
  let point = 0;
  let cum = 0;
  let bestP = -1;
  for (let k = 0; k <= last; k++) {
    const before = cum;
    cum += p[k]!;
    if (cum >= 0.25 && before <= 0.75 && p[k]! > bestP) {
      bestP = p[k]!;
      point = k;
    }
  }
  let [lo, hi] = [0, last];
  let bestWidth = Infinity;
  let bestMass = 0;
  let mass = 0;
  for (let a = 0, b = -1; a <= last; a++) {
    while (mass < level && b < last) mass += p[++b]!;
    if (mass < level) break;
    const width = dates[b]! - dates[a]!;
    if (width < bestWidth || (width === bestWidth && mass > bestMass)) [lo, hi, bestWidth, bestMass] = [a, b, width, mass];
    mass -= p[a]!;
  }
  return [point, Math.min(lo, point), Math.max(hi, point)];
}

/** p ∝ transit · (expert + floor)^β, normalised; the transit alone without an expert. */
function combine(transit: Float64Array, expert: Float64Array | null, beta: number): Float64Array {
  if (!expert || beta === 0) return transit;
  const out = transit.map((t, k) => t * Math.pow(expert[k]! + FLOOR, beta));
  const total = out.reduce((s, x) => s + x, 0);
  return total > 0 ? out.map((x) => x / total) : transit;
}
