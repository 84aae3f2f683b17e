export interface HistogramView {
  /** Observations per bucket (not cumulative), `≤ 5 ms` … `> 10 s`. */
  buckets: Array<{ label: string; count: number }>;
  count: number;
  sum: number;
}

/**
 * One unlabelled-or-summed histogram from Prometheus text exposition: cumulative `_bucket`
 * lines summed over their other labels, turned into per-bucket counts.
 */
export function parseHistogram(text: string, name: string): HistogramView {
  const cumulative = new Map<number, number>();
  let count = 0;
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith(`${name}_bucket{`)) {
      const le = /le="([^"]+)"/.exec(line)?.[1];
      const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
      cumulative.set(bound, (cumulative.get(bound) ?? 0) + value);
    } else if (line.startsWith(`${name}_count`)) count += value;
    else if (line.startsWith(`${name}_sum`)) sum += value;
  }
  const bounds = [...cumulative.keys()].sort((a, b) => a - b);
  let below = 0;
  const buckets = bounds.map((bound, i) => {
    const total = cumulative.get(bound) ?? 0;
    const bucket = {
      label: bound === Number.POSITIVE_INFINITY ? `>${short(bounds[i - 1] ?? 0)}` : `≤${short(bound)}`,
      count: total - below,
    };
    below = total;
    return bucket;
  });
  return { buckets, count, sum };
}

function short(seconds: number): string {
  if (seconds < 0.001) return `${(seconds * 1000).toFixed(1)}ms`;
  return seconds < 1 ? `${Math.round(seconds * 1000)}ms` : `${seconds}s`;
}
