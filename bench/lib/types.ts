/** One measured figure set. A bench module's default export returns a list of these. */
export interface BenchResult {
  /** What was measured, e.g. "list 100 trackings". */
  name: string;
  /** Where: "PGlite, 1k trackings", "PostgreSQL 15, 1M trackings". */
  setup?: string;
  /** Figures: req/s, p99 ms, ratio to the baseline, ... */
  metrics: Record<string, number | string>;
  note?: string;
}
