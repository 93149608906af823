/** Median, 95th percentile and count of a set of samples (ms). */
export interface Summary {
  median: number;
  p95: number;
  n: number;
}

/** The q-quantile of samples (nearest rank). */
export function quantile(samples: number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Median and p95 of samples. */
export function summarize(samples: number[]): Summary {
  return { median: quantile(samples, 0.5), p95: quantile(samples, 0.95), n: samples.length };
}

/** The median of a list of numbers (mean of the middle two for an even count). */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A number of milliseconds for a table: one decimal below 100, whole above. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return "—";
  return value < 100 ? value.toFixed(1) : value.toFixed(0);
}

/** A ratio as `1.05×`. */
export function times(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : "—";
}
