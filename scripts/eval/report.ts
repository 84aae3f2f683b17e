import { escapeHtml, htmlPage, pct, textTable } from './html.ts';
import type { EvalResult, SystemResult } from './run.ts';
import type { ScoreSummary } from './scoring.ts';

const SYSTEMS = [
  { key: 'hindsight', label: 'hindsight', colour: '#2563eb', dash: '' },
  { key: 'bm25', label: 'BM25', colour: '#dc2626', dash: '6 4' },
] as const;

function systemsOf(result: EvalResult): Array<{ label: string; colour: string; dash: string; system: SystemResult }> {
  return SYSTEMS.map((s) => ({ ...s, system: result[s.key] }));
}

function scopes(result: EvalResult): Array<{ name: string; pick: (s: SystemResult) => ScoreSummary | undefined }> {
  return [
    { name: 'overall', pick: (s) => s.overall },
    ...Object.keys(result.hindsight.byCategory).map((c) => ({
      name: `category ${c}`,
      pick: (s: SystemResult) => s.byCategory[c],
    })),
  ];
}

/** The plain-text tables printed at the end of a run. */
export function formatEvalTables(result: EvalResult): string {
  const { ks } = result;
  const header = ['scope', 'system', 'n', ...ks.map((k) => `R@${k}`), 'MRR'];
  const rows: string[][] = [];
  for (const scope of scopes(result)) {
    for (const { label, system } of systemsOf(result)) {
      const s = scope.pick(system);
      if (!s) continue;
      rows.push([scope.name, label, String(s.questions), ...ks.map((k) => pct(s.recall[k] ?? 0)), s.mrr.toFixed(3)]);
    }
  }
  const d = result.dataset;
  const h = result.hindsight;
  const lines = [
    `dataset ${d.name} (${d.layout}): ${d.conversations} conversations, ${d.turns} turns, ${d.questions} questions with evidence` +
      (d.questionsWithoutEvidence ? ` (${d.questionsWithoutEvidence} without, skipped)` : '') +
      (d.unreachableEvidence ? `; ${d.unreachableEvidence} evidence ids name no turn (recall ceiling < 100%)` : ''),
    `ingest (${result.ingest.mode}): ${result.ingest.memories} memories (${result.ingest.duplicates} duplicate turns, ${result.ingest.rejected} rejected) in ${result.ingest.seconds.toFixed(1)} s = ${result.ingest.perSecond.toFixed(0)}/s`,
    '',
    'recall@k (%) and MRR',
    ...textTable(header, rows),
    '',
    `latency hindsight /v1/search (HTTP round trip, one client): p50 ${h.latencyMs.p50.toFixed(1)} ms, p95 ${h.latencyMs.p95.toFixed(1)} ms; server took_ms p50 ${h.serverMs.p50.toFixed(1)} ms, p95 ${h.serverMs.p95.toFixed(1)} ms`,
    `latency BM25 (in process, no HTTP): p50 ${result.bm25.latencyMs.p50.toFixed(2)} ms, p95 ${result.bm25.latencyMs.p95.toFixed(2)} ms`,
    `context tokens (mean, first k lines): ${ks.map((k) => `@${k} ${(h.contextTokens[k] ?? 0).toFixed(0)}`).join(', ')}` +
      (h.truncatedAnswers ? `; ${h.truncatedAnswers} answers cut by the token budget` : ''),
    `recall@10 overall: hindsight ${pct(h.overall.recall[10] ?? 0)} vs BM25 ${pct(result.bm25.overall.recall[10] ?? 0)}`,
  ];
  return lines.join('\n');
}

/** recall@k against k for every system and scope, as one inline SVG. */
export function recallChart(result: EvalResult): string {
  const width = 720;
  const height = 360;
  const pad = { left: 56, right: 180, top: 24, bottom: 44 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const { ks } = result;
  const x = (i: number) => pad.left + (ks.length === 1 ? plotW / 2 : (i / (ks.length - 1)) * plotW);
  const y = (v: number) => pad.top + (1 - v) * plotH;
  const parts: string[] = [];
  for (let t = 0; t <= 10; t += 2) {
    const v = t / 10;
    parts.push(
      `<line x1="${pad.left}" x2="${pad.left + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e7eb"/>`,
      `<text x="${pad.left - 8}" y="${y(v) + 4}" text-anchor="end" font-size="11">${t * 10}%</text>`,
    );
  }
  ks.forEach((k, i) => {
    parts.push(`<text x="${x(i)}" y="${height - pad.bottom + 18}" text-anchor="middle" font-size="11">@${k}</text>`);
  });
  parts.push(
    `<text x="${pad.left + plotW / 2}" y="${height - 6}" text-anchor="middle" font-size="12">k (results)</text>`,
  );

  let legendY = pad.top;
  const allScopes = scopes(result);
  allScopes.forEach((scope, scopeIndex) => {
    const overall = scopeIndex === 0;
    for (const { label, colour, dash, system } of systemsOf(result)) {
      const s = scope.pick(system);
      if (!s) continue;
      const points = ks.map((k, i) => `${x(i).toFixed(1)},${y(s.recall[k] ?? 0).toFixed(1)}`).join(' ');
      const opacity = overall ? 1 : 0.35;
      const strokeWidth = overall ? 2.5 : 1.2;
      parts.push(
        `<polyline points="${points}" fill="none" stroke="${colour}" stroke-width="${strokeWidth}" stroke-opacity="${opacity}"${dash ? ` stroke-dasharray="${dash}"` : ''}><title>${escapeHtml(`${label} ${scope.name}`)}</title></polyline>`,
      );
      if (overall) {
        ks.forEach((k, i) => {
          parts.push(
            `<circle cx="${x(i)}" cy="${y(s.recall[k] ?? 0)}" r="3.5" fill="${colour}"><title>${escapeHtml(`${label} recall@${k} ${pct(s.recall[k] ?? 0)}%`)}</title></circle>`,
          );
        });
      }
      parts.push(
        `<line x1="${width - pad.right + 12}" x2="${width - pad.right + 36}" y1="${legendY}" y2="${legendY}" stroke="${colour}" stroke-width="${strokeWidth}" stroke-opacity="${opacity}"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
        `<text x="${width - pad.right + 42}" y="${legendY + 4}" font-size="11">${escapeHtml(`${label} ${scope.name}`)}</text>`,
      );
      legendY += 16;
    }
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="recall at k">${parts.join('')}</svg>`;
}

/** One self-contained HTML file: no scripts, no external assets. */
export function renderEvalHtml(result: EvalResult): string {
  const { ks } = result;
  const rows = scopes(result)
    .flatMap((scope) =>
      systemsOf(result).map(({ label, system }) => {
        const s = scope.pick(system);
        if (!s) return '';
        return `<tr><td>${escapeHtml(scope.name)}</td><td>${label}</td><td>${s.questions}</td>${ks.map((k) => `<td>${pct(s.recall[k] ?? 0)}</td>`).join('')}<td>${s.mrr.toFixed(3)}</td></tr>`;
      }),
    )
    .join('\n');
  const h = result.hindsight;
  return htmlPage(
    `hindsight retrieval eval — ${result.dataset.name}`,
    `<h1>Retrieval eval: ${escapeHtml(result.dataset.name)}</h1>
<p>${result.dataset.conversations} conversations (${escapeHtml(result.dataset.layout)} layout), ${result.dataset.turns} turns stored as episodic memories through the HTTP API,
${result.dataset.questions} questions with evidence. Recall@k is the share of a question's evidence turns among the top k results; MRR the reciprocal rank of the first hit.
The BM25 baseline ranks the same memories with plain Okapi BM25 over the same terms, in the same run.</p>
${recallChart(result)}
<table><thead><tr><th>scope</th><th>system</th><th>n</th>${ks.map((k) => `<th>R@${k} %</th>`).join('')}<th>MRR</th></tr></thead><tbody>
${rows}
</tbody></table>
<h2>Latency and context</h2>
<ul>
<li>hindsight <code>/v1/search</code>, HTTP round trip with one client: p50 ${h.latencyMs.p50.toFixed(1)} ms, p95 ${h.latencyMs.p95.toFixed(1)} ms (server <code>took_ms</code> p50 ${h.serverMs.p50.toFixed(1)} ms, p95 ${h.serverMs.p95.toFixed(1)} ms)</li>
<li>BM25 in process: p50 ${result.bm25.latencyMs.p50.toFixed(2)} ms, p95 ${result.bm25.latencyMs.p95.toFixed(2)} ms</li>
<li>Context tokens (mean of the first k lines): ${ks.map((k) => `@${k}: ${(h.contextTokens[k] ?? 0).toFixed(0)}`).join(', ')}</li>
<li>Ingest: ${result.ingest.memories} memories (${result.ingest.duplicates} duplicate turns, ${result.ingest.rejected} rejected) at ${result.ingest.perSecond.toFixed(0)}/s</li>
</ul>
<p><small>Generated ${escapeHtml(result.generatedAt)} in ${result.durationSeconds.toFixed(0)} s against ${escapeHtml(result.service.url)}${result.service.spawned ? ' (a fresh memory-api process)' : ''}.</small></p>`,
  );
}
