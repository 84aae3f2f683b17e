import { escapeHtml, groupedBarChart, htmlPage, pct, SERIES_COLOURS, stripChart, textTable } from './html.ts';
import type { HitSummary, PersonalFactsResult, PersonalFactsSummary } from './personal-facts.ts';

const SYSTEMS = [
  { key: 'hindsight', label: 'hindsight' },
  { key: 'bm25', label: 'BM25' },
] as const;

/** The plain-text tables printed at the end of a personal-facts run. */
export function formatPersonalFactsTables(result: PersonalFactsResult): string {
  const header = ['scope', 'system', 'n', 'hit@1', 'hit@3', 'hit@10', 'MRR'];
  const rows: string[][] = [];
  const scopes: Array<[string, PersonalFactsSummary]> = [
    ...Object.entries(result.bySplit),
    ...Object.entries(result.byLanguage),
  ];
  for (const [scope, summary] of scopes) {
    for (const { key, label } of SYSTEMS) {
      const s: HitSummary = summary[key];
      rows.push([scope, label, String(s.questions), pct(s.hit1), pct(s.hit3), pct(s.hit10), s.mrr.toFixed(3)]);
    }
  }
  const d = result.dataset;
  const w = result.writes;
  const lines = [
    `dataset ${d.path} (personal facts, splits ${d.splits.join(', ')}): ${d.people} people, ${d.facts} facts, ${d.questions} questions, ${d.unanswerable} unanswerable`,
    `writes: ${w.created} created, ${w.duplicate} duplicate, ${w.merged} merged, ${w.superseded} superseded, ${w.quarantined} quarantined, ${w.rejected} rejected`,
    ...result.replaced.map((r) => `  ${r.split}/${r.person}: fact ${r.fact} ${r.status} by fact ${r.by}`),
    '',
    'hit@k (%) and MRR of the one fact that answers each question',
    ...textTable(header, rows),
    '',
    'questions sharing no content word with their fact; unanswerable questions (no fact behind them):',
    ...Object.entries(result.bySplit).map(
      ([split, s]) =>
        `  ${split.padEnd(10)} no shared word ${pct(s.noSharedTerms)}%; unanswerable: ${s.unanswerable.questions}, mean results ${s.unanswerable.meanResults.toFixed(1)}, answered empty ${pct(s.unanswerable.answeredEmpty)}%, mean top score ${s.unanswerable.meanTopScore.toFixed(3)}`,
    ),
    '',
    `latency /v1/search (HTTP round trip, one client): p50 ${result.latencyMs.p50.toFixed(1)} ms, p95 ${result.latencyMs.p95.toFixed(1)} ms`,
  ];
  return lines.join('\n');
}

/** One self-contained HTML file with the charts and every question's outcome. */
export function renderPersonalFactsHtml(result: PersonalFactsResult): string {
  const series = SYSTEMS.map((s, i) => ({ label: s.label, colour: SERIES_COLOURS[i] as string }));
  const charts = Object.entries(result.bySplit).map(([split, s]) =>
    groupedBarChart({
      title: `${split}: hit@1, hit@3, hit@10, MRR (${s.hindsight.questions} questions)`,
      series,
      groups: [
        { label: 'hit@1', values: [s.hindsight.hit1, s.bm25.hit1] },
        { label: 'hit@3', values: [s.hindsight.hit3, s.bm25.hit3] },
        { label: 'hit@10', values: [s.hindsight.hit10, s.bm25.hit10] },
        { label: 'MRR', values: [s.hindsight.mrr, s.bm25.mrr] },
      ],
    }),
  );
  const languageChart = groupedBarChart({
    title: 'hit@1 by split and language',
    series,
    groups: Object.entries(result.byLanguage).map(([scope, s]) => ({
      label: scope,
      values: [s.hindsight.hit1, s.bm25.hit1],
    })),
  });
  const scores = stripChart({
    title: "hindsight's top score: is there a floor that separates relevant from nothing relevant?",
    rows: [
      {
        label: 'right fact first',
        colour: SERIES_COLOURS[2],
        values: result.questions.filter((q) => q.rank === 1).map((q) => q.topScore ?? 0),
      },
      {
        label: 'wrong fact first',
        colour: SERIES_COLOURS[3],
        values: result.questions.filter((q) => q.rank !== 1 && q.topScore !== null).map((q) => q.topScore ?? 0),
      },
      {
        label: 'unanswerable',
        colour: SERIES_COLOURS[1],
        values: result.unanswerable.filter((q) => q.topScore !== null).map((q) => q.topScore ?? 0),
      },
    ],
  });
  const summaryRows = [...Object.entries(result.bySplit), ...Object.entries(result.byLanguage)]
    .flatMap(([scope, summary]) =>
      SYSTEMS.map(({ key, label }) => {
        const s = summary[key];
        return `<tr><td>${escapeHtml(scope)}</td><td>${label}</td><td>${s.questions}</td><td>${pct(s.hit1)}</td><td>${pct(s.hit3)}</td><td>${pct(s.hit10)}</td><td>${s.mrr.toFixed(3)}</td></tr>`;
      }),
    )
    .join('\n');
  const floorRows = Object.entries(result.bySplit)
    .map(
      ([split, s]) =>
        `<tr><td>${escapeHtml(split)}</td><td>${pct(s.noSharedTerms)}</td><td>${s.unanswerable.questions}</td><td>${s.unanswerable.meanResults.toFixed(1)}</td><td>${pct(s.unanswerable.answeredEmpty)}</td><td>${s.unanswerable.meanTopScore.toFixed(3)}</td></tr>`,
    )
    .join('\n');
  const rank = (r: number) => (r === 0 ? '–' : String(r));
  const questionRows = result.questions
    .map(
      (q) =>
        `<tr><td>${escapeHtml(`${q.split}/${q.person}/${q.fact}`)}</td><td>${escapeHtml(q.question)}</td><td>${rank(q.rank)}</td><td>${rank(q.bm25Rank)}</td><td>${q.results}</td><td>${escapeHtml(q.sharedTerms.join(' ') || '–')}</td></tr>`,
    )
    .join('\n');
  const d = result.dataset;
  const w = result.writes;
  return htmlPage(
    'hindsight personal-facts eval',
    `<h1>Personal facts: ${escapeHtml(d.splits.join(', '))}</h1>
<p>${d.facts} facts about ${d.people} people, each stored with <code>POST /v1/memories</code> as one semantic memory of its own user,
one write at a time (${w.created} created, ${w.duplicate} duplicate, ${w.merged} merged, ${w.superseded} superseded, ${w.rejected} rejected).
${d.questions} questions, each answered by exactly one fact; hit@k is the share of questions whose fact is among the first k results of
<code>/v1/search</code> with the service's defaults (top_k ${result.topK}); MRR the mean reciprocal rank. BM25 ranks the same facts
with plain Okapi BM25 over the same terms, in the same run. ${d.unanswerable} more questions have no fact behind them.</p>
${charts.join('\n')}
${languageChart}
<table><thead><tr><th>scope</th><th>system</th><th>n</th><th>hit@1 %</th><th>hit@3 %</th><th>hit@10 %</th><th>MRR</th></tr></thead><tbody>
${summaryRows}
</tbody></table>
<h2>Relevance floor</h2>
${scores}
<table><thead><tr><th>split</th><th>no shared word %</th><th>unanswerable</th><th>mean results</th><th>answered empty %</th><th>mean top score</th></tr></thead><tbody>
${floorRows}
</tbody></table>
<h2>Every question</h2>
<table><thead><tr><th>fact</th><th>question</th><th>hindsight rank</th><th>BM25 rank</th><th>results</th><th>shared words</th></tr></thead><tbody>
${questionRows}
</tbody></table>
<p><small>Generated ${escapeHtml(result.generatedAt)} in ${result.durationSeconds.toFixed(0)} s against ${escapeHtml(result.service.url)}${result.service.spawned ? ' (a fresh memory-api process)' : ''};
search p50 ${result.latencyMs.p50.toFixed(1)} ms, p95 ${result.latencyMs.p95.toFixed(1)} ms.</small></p>`,
  );
}
