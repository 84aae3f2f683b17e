export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * Reads the Prometheus text exposition format (what `/metrics` serves) into samples, for the
 * CLI's `stats`, the benchmarks and tests. Comment and blank lines are skipped; a line that is
 * not a sample throws, so a malformed exposition is noticed rather than half-read.
 */
export function parsePrometheusText(text: string): PrometheusSample[] {
  const samples: PrometheusSample[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`line ${index + 1} is not a Prometheus sample: ${line.slice(0, 120)}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) {
      labels[key as string] = (value as string).replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: match[1] as string, labels, value: parseValue(match[3] as string) });
  }
  return samples;
}

function parseValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  // Prometheus reads NaN in any case; prom-client writes "Nan" (e.g. event-loop lag before its first sample).
  if (Number.isNaN(value) && text.toLowerCase() !== 'nan') throw new Error(`not a sample value: ${text}`);
  return value;
}
