import { readFile } from 'node:fs/promises';
import { parsePrometheusText } from '@hindsight/metrics';
import { round } from '../eval/scoring.ts';

/** What a service's /metrics answered at one moment. */
export type Samples = ReturnType<typeof parsePrometheusText>;

export async function scrape(url: string): Promise<Samples> {
  const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET /metrics answered ${response.status}`);
  return parsePrometheusText(await response.text());
}

/** Mean milliseconds per /retrieve of each stage, from histogram sums between two scrapes. */
export function breakdown(before: Samples, after: Samples): Record<string, number> {
  const total = (samples: Samples, name: string, match: (l: Record<string, string>) => boolean) =>
    samples.filter((s) => s.name === name && match(s.labels)).reduce((sum, s) => sum + s.value, 0);
  const delta = (name: string, match: (l: Record<string, string>) => boolean = () => true) =>
    total(after, name, match) - total(before, name, match);
  const requests = delta('hindsight_http_request_duration_seconds_count', (l) => l.route === '/retrieve');
  if (requests <= 0) return {};
  const perRequest = (seconds: number) => round((seconds / requests) * 1000);
  const result: Record<string, number> = {
    http: perRequest(delta('hindsight_http_request_duration_seconds_sum', (l) => l.route === '/retrieve')),
    search: perRequest(delta('hindsight_search_duration_seconds_sum')),
    embed: perRequest(delta('hindsight_embed_duration_seconds_sum')),
  };
  const operations = [
    'searchCandidates',
    'keywordSearch',
    'vectorSearch',
    'candidateRecords',
    'getMany',
    'similarities',
    'recordAccess',
  ];
  for (const op of operations) {
    result[op] = perRequest(delta('hindsight_store_query_duration_seconds_sum', (l) => l.operation === op));
  }
  return result;
}

/** A process's resident memory now and at its peak, from /proc. */
export async function readRss(pid: number): Promise<{ rssBytes: number; peakBytes: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rssBytes: kib('VmRSS'), peakBytes: kib('VmHWM') };
}

/**
 * CPU time a process has used so far (user + system, every thread), ms: `/proc/<pid>/stat` counts it
 * in clock ticks of 10 ms (USER_HZ 100 on Linux), so read it over hundreds of requests.
 */
export async function readCpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
