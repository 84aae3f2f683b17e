import { type CaseOutcome, type ConflictEvalResult, type ConflictSummary, describeExpectation } from './conflicts.ts';
import { escapeHtml, groupedBarChart, htmlPage, pct, SERIES_COLOURS, textTable } from './html.ts';

const scopesOf = (result: ConflictEvalResult): Array<[string, ConflictSummary]> => [
  ...Object.entries(result.bySplit),
  ...Object.entries(result.byLanguage),
  ['all', result.overall],
];

/** The plain-text tables printed at the end of a conflicts run. */
export function formatConflictTables(result: ConflictEvalResult): string {
  const header = [
    'scope',
    'cases',
    'supersede P',
    'supersede R',
    'merge P',
    'merge R',
    'unrelated hit',
    'contradictions',
    'refinements superseded',
    'restatements merged',
    'content-free merged',
  ];
  const rows = scopesOf(result).map(([scope, s]) => [
    scope,
    String(s.cases),
    pct(s.supersede.precision),
    pct(s.supersede.recall),
    pct(s.merge.precision),
    pct(s.merge.recall),
    `${s.unrelatedAffected} / ${s.unrelatedFacts}`,
    `${s.contradictionsResolved} / ${s.contradictions}`,
    `${s.refinementsSuperseded} / ${s.refinements}`,
    `${s.restatementsMerged} / ${s.restatements}`,
    `${s.contentFreeMergedOrSuperseding} / ${s.contentFree}`,
  ]);
  const wrong = result.cases.filter((c) => !c.correct);
  const d = result.dataset;
  return [
    `dataset ${d.path} (conflicts, splits ${d.splits.join(', ')}): ${d.cases} cases, ${d.writes} writes`,
    '',
    'supersede / merge precision and recall (%); "unrelated hit" = unrelated facts superseded or merged',
    ...textTable(header, rows),
    '',
    wrong.length === 0 ? 'every case decided as expected' : `cases decided otherwise (${wrong.length}):`,
    ...wrong.flatMap(describeCase),
  ].join('\n');
}

function describeCase(c: CaseOutcome): string[] {
  const lines = [`  ${c.split}/${c.id} (${c.group}, ${c.language})`];
  for (const w of c.writes) {
    if (w.correct) continue;
    const got = [
      w.status,
      w.superseded.length > 0 ? `superseded ${w.superseded.join(', ')}` : '',
      w.mergedInto !== null ? `into ${w.mergedInto}` : '',
    ]
      .filter(Boolean)
      .join(' ');
    lines.push(`    #${w.index} "${w.content}": expected ${describeExpectation(w.expected)}, got ${got}`);
  }
  for (const i of c.wronglyChanged)
    lines.push(`    #${i} was superseded or rewritten although nothing should change it`);
  return lines;
}

/** One self-contained HTML file with the charts and every case's outcome. */
export function renderConflictsHtml(result: ConflictEvalResult): string {
  const series = [
    { label: 'precision', colour: SERIES_COLOURS[0] as string },
    { label: 'recall', colour: SERIES_COLOURS[2] as string },
  ];
  const charts = scopesOf(result).map(([scope, s]) =>
    groupedBarChart({
      title: `${scope}: supersede and merge decisions (${s.cases} cases)`,
      series,
      groups: [
        { label: 'supersede', values: [s.supersede.precision, s.supersede.recall] },
        { label: 'merge', values: [s.merge.precision, s.merge.recall] },
      ],
    }),
  );
  const rows = result.cases
    .flatMap((c) =>
      c.writes.map(
        (w) =>
          `<tr><td>${escapeHtml(`${c.split}/${c.id}`)}</td><td>${escapeHtml(c.group)}</td><td>${w.index}</td><td style="text-align:left">${escapeHtml(w.content)}</td><td style="text-align:left">${escapeHtml(describeExpectation(w.expected))}</td><td>${escapeHtml(w.status)}${w.superseded.length > 0 ? ` (${w.superseded.join(', ')})` : ''}${w.mergedInto !== null ? ` → ${w.mergedInto}` : ''}</td><td>${w.correct && !c.wronglyChanged.includes(w.index) ? '✓' : '✗'}</td></tr>`,
      ),
    )
    .join('\n');
  const body = `<h1>Conflict eval</h1>
<p>${escapeHtml(result.dataset.path)}: ${result.dataset.cases} cases, ${result.dataset.writes} writes, ${escapeHtml(result.generatedAt)}</p>
<pre>${escapeHtml(formatConflictTables(result))}</pre>
${charts.join('\n')}
<h2>Every write</h2>
<table><tr><th>case</th><th>group</th><th>#</th><th>content</th><th>expected</th><th>answer</th><th></th></tr>
${rows}
</table>`;
  return htmlPage('hindsight conflict eval', body);
}
