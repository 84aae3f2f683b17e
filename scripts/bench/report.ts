import { escapeHtml, htmlPage, SERIES_COLOURS } from '../eval/html.ts';
import type { MixedLoadFigures } from './mixed-load.ts';

/** One store size of a bench run, as the HTML report plots it. */
export interface SizePoint {
  memories: number;
  p50: number;
  p95: number;
  floorP50: number;
  bytesPerMemory: number;
  rssBytes: number;
  /** The embedder service's RSS, when memory-api embeds through it. */
  embedderRssBytes?: number;
}

/** A target of issue 18, met or not in this run. */
export interface TargetRow {
  name: string;
  measured: number;
  target: number;
  met: boolean;
}

/**
 * `/retrieve` p50/p95 one client against the store size (log scale), with the HTTP floor, and a
 * table of the figures: how cost grows from 10k to 1M memories.
 */
export function renderBenchHtml(options: {
  title: string;
  points: readonly SizePoint[];
  summary: string;
  mixed?: ReadonlyArray<MixedLoadFigures & { memories: number }>;
  targets?: readonly TargetRow[];
}): string {
  const points = [...options.points].sort((a, b) => a.memories - b.memories);
  const width = 640;
  const height = 320;
  const margin = { left: 56, right: 16, top: 16, bottom: 44 };
  const logs = points.map((p) => Math.log10(p.memories));
  const minX = Math.min(...logs) - 0.1;
  const maxX = Math.max(...logs) + 0.1;
  const maxY = Math.max(1, ...points.map((p) => p.p95)) * 1.1;
  const x = (memories: number) =>
    margin.left + ((Math.log10(memories) - minX) / (maxX - minX || 1)) * (width - margin.left - margin.right);
  const y = (ms: number) => height - margin.bottom - (ms / maxY) * (height - margin.top - margin.bottom);
  const series = [
    { name: '/retrieve p95', colour: SERIES_COLOURS[1], value: (p: SizePoint) => p.p95 },
    { name: '/retrieve p50', colour: SERIES_COLOURS[0], value: (p: SizePoint) => p.p50 },
    { name: 'HTTP floor p50', colour: SERIES_COLOURS[2], value: (p: SizePoint) => p.floorP50 },
  ];
  const lines = series
    .map((s) => {
      const path = points.map(
        (p, i) => `${i === 0 ? 'M' : 'L'}${x(p.memories).toFixed(1)},${y(s.value(p)).toFixed(1)}`,
      );
      const dots = points
        .map(
          (p) =>
            `<circle cx="${x(p.memories).toFixed(1)}" cy="${y(s.value(p)).toFixed(1)}" r="3" fill="${s.colour}"><title>${escapeHtml(`${s.name} at ${p.memories}: ${s.value(p).toFixed(2)} ms`)}</title></circle>`,
        )
        .join('');
      return `<path d="${path.join(' ')}" fill="none" stroke="${s.colour}" stroke-width="2"/>${dots}`;
    })
    .join('');
  const yTicks = Array.from({ length: 5 }, (_, i) => (maxY / 4) * i)
    .map(
      (ms) =>
        `<line x1="${margin.left}" x2="${width - margin.right}" y1="${y(ms)}" y2="${y(ms)}" stroke="#e5e7eb"/><text x="${margin.left - 6}" y="${y(ms) + 4}" text-anchor="end" font-size="11">${ms.toFixed(1)}</text>`,
    )
    .join('');
  const xTicks = points
    .map(
      (p) =>
        `<text x="${x(p.memories)}" y="${height - margin.bottom + 16}" text-anchor="middle" font-size="11">${formatCount(p.memories)}</text>`,
    )
    .join('');
  const legend = series
    .map(
      (s, i) =>
        `<rect x="${margin.left + 10 + i * 150}" y="${height - 14}" width="12" height="3" fill="${s.colour}"/><text x="${margin.left + 26 + i * 150}" y="${height - 9}" font-size="11">${escapeHtml(s.name)}</text>`,
    )
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="retrieve latency against store size">${yTicks}${xTicks}${lines}${legend}<text x="14" y="${margin.top + 100}" font-size="11" transform="rotate(-90 14 ${margin.top + 100})">ms</text></svg>`;
  const rows = points
    .map(
      (p) =>
        `<tr><td>${formatCount(p.memories)}</td><td>${p.p50.toFixed(2)}</td><td>${p.p95.toFixed(2)}</td><td>${p.floorP50.toFixed(2)}</td><td>${Math.round(p.bytesPerMemory)}</td><td>${(p.rssBytes / 1024 ** 2).toFixed(0)}</td><td>${p.embedderRssBytes === undefined ? 'in process' : (p.embedderRssBytes / 1024 ** 2).toFixed(0)}</td></tr>`,
    )
    .join('');
  const body = `<h1>${escapeHtml(options.title)}</h1>
<p>${escapeHtml(options.summary)}</p>
${svg}
<table><thead><tr><th>memories</th><th>/retrieve p50 ms</th><th>p95 ms</th><th>HTTP floor p50 ms</th><th>disk bytes / memory</th><th>memory-api RSS MiB</th><th>embedder RSS MiB</th></tr></thead><tbody>${rows}</tbody></table>
${mixedTable(options.mixed ?? [])}
${targetTable(options.targets ?? [])}`;
  return htmlPage(options.title, body);
}

/** Issue 18's mixed load: throughput and each operation's latency. */
function mixedTable(runs: ReadonlyArray<MixedLoadFigures & { memories: number }>): string {
  if (runs.length === 0) return '';
  const rows = runs
    .flatMap((run) =>
      (['retrieve', 'store', 'turn'] as const).map(
        (op) =>
          `<tr><td>${formatCount(run.memories)}</td><td>${run.concurrency}</td><td>${run.throughput.toFixed(0)}</td><td>${op}</td><td>${run[op].requests}</td><td>${run[op].p50.toFixed(2)}</td><td>${run[op].p95.toFixed(2)}</td></tr>`,
      ),
    )
    .join('');
  return `<h2>Mixed load (80 % /retrieve, 15 % /store, 5 % session turns)</h2>
<table><thead><tr><th>memories</th><th>clients</th><th>req/s</th><th>operation</th><th>requests</th><th>p50 ms</th><th>p95 ms</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function targetTable(targets: readonly TargetRow[]): string {
  if (targets.length === 0) return '';
  const rows = targets
    .map(
      (t) =>
        `<tr><td>${escapeHtml(t.name)}</td><td>${t.measured}</td><td>${t.target}</td><td>${t.met ? 'met' : 'not met'}</td></tr>`,
    )
    .join('');
  return `<h2>Targets (issue 18)</h2>
<table><thead><tr><th>figure</th><th>measured</th><th>target</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
}

function formatCount(n: number): string {
  if (n >= 1_000_000) return `${n / 1_000_000}M`;
  if (n >= 1000) return `${n / 1000}k`;
  return String(n);
}
