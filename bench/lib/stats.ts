/** The p-th percentile of numbers sorted ascending (nearest rank, the same rule in every bench). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** The same of unsorted numbers, rounded to a whole millisecond. */
export function percentileMs(xs: readonly number[], p: number): number {
  return Math.round(
    percentile(
      [...xs].sort((a, b) => a - b),
      p,
    ),
  );
}
