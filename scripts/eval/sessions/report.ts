import { escapeHtml, groupedBarChart, htmlPage, pct, SERIES_COLOURS, textTable } from '../html.ts';
import type { SessionsEvalResult, SplitSummary } from './run.ts';

const SCOPES = ['all', 'tune', 'held-out'] as const;

function scopeRows(result: SessionsEvalResult): Array<[string, SplitSummary]> {
  return [
    ...SCOPES.map((s) => [s, result.splits[s]] as [string, SplitSummary]),
    ...Object.entries(result.byLang).map(([lang, s]) => [`lang ${lang}`, s] as [string, SplitSummary]),
  ].filter(([, s]) => s.users > 0);
}

export function formatSessionsTables(result: SessionsEvalResult): string {
  const rows = scopeRows(result).map(([name, s]) => [
    name,
    String(s.users),
    String(s.facts),
    `${pct(s.kept)}`,
    `${pct(s.distilled)}`,
    `${pct(s.extracted)}`,
    `${pct(s.baselineKept)}`,
    `${s.noise}/${s.semanticMemories} (${pct(s.noiseShare)})`,
    `${s.reversedActive}/${s.reversals}`,
  ]);
  const c = result.consolidation;
  return [
    `sessions eval: ${result.fixture.users} users, ${result.fixture.sessions} sessions, ${result.fixture.turns} turns, ${result.fixture.facts} gold facts; extractor ${result.service.extractor}`,
    ...textTable(
      [
        'scope',
        'users',
        'facts',
        'kept@5 %',
        'distilled@5 %',
        'in semantic %',
        'raw-turns kept@5 %',
        'noise (share %)',
        'reversed active',
      ],
      rows,
    ),
    `consolidation: ${c.jobs} jobs (${c.failed} failed), p50 ${c.p50Ms} ms, max ${c.maxMs} ms${c.longest ? `, longest session ${c.longest.turns} turns in ${c.longest.ms} ms` : ''}`,
  ].join('\n');
}

export function renderSessionsHtml(result: SessionsEvalResult): string {
  const scopes = scopeRows(result);
  const chart = groupedBarChart({
    title: 'Facts found after the session ended (top 5 of /retrieve)',
    series: [
      { label: 'kept@5', colour: SERIES_COLOURS[0] },
      { label: 'distilled@5', colour: SERIES_COLOURS[2] },
      { label: 'raw turns kept@5', colour: SERIES_COLOURS[1] },
    ],
    groups: scopes.map(([name, s]) => ({ label: name, values: [s.kept, s.distilled, s.baselineKept] })),
  });
  const table = scopes
    .map(
      ([name, s]) =>
        `<tr><td>${escapeHtml(name)}</td><td>${s.users}</td><td>${s.facts}</td><td>${pct(s.kept)}</td><td>${pct(s.distilled)}</td><td>${pct(s.extracted)}</td><td>${pct(s.baselineKept)}</td><td>${s.noise}/${s.semanticMemories} (${pct(s.noiseShare)} %)</td><td>${s.reversedActive}/${s.reversals}</td></tr>`,
    )
    .join('\n');
  const missed = result.facts
    .filter((f) => !f.kept || !f.distilled)
    .map(
      (f) =>
        `<tr><td>${escapeHtml(f.user)}</td><td>${f.split}</td><td>${escapeHtml(f.question)}</td><td>${escapeHtml(f.expect.join(', '))}</td><td>${f.kept ? '✓' : '✗'}</td><td>${f.distilled ? '✓' : '✗'}</td><td>${escapeHtml((f.evidence ?? '').slice(0, 160))}</td></tr>`,
    )
    .join('\n');
  const noise = result.noiseMemories
    .map((n) => `<li>${escapeHtml(n.user)} (${n.split}): ${escapeHtml(n.content)}</li>`)
    .join('\n');
  const reversed = result.reversedActive
    .map((r) => `<li>${escapeHtml(r.user)} — ${escapeHtml(r.what)}: ${escapeHtml(r.content)}</li>`)
    .join('\n');
  const c = result.consolidation;
  return htmlPage(
    'hindsight sessions eval',
    `<h1>Sessions eval</h1>
<p>${result.fixture.users} users, ${result.fixture.sessions} sessions, ${result.fixture.turns} turns, ${result.fixture.facts} gold facts, played through memory-api's HTTP API and ended, so the real consolidation worker (extractor <code>${escapeHtml(result.service.extractor)}</code>) distilled them.
<b>kept@5</b>: the gold fact's words are in one of the top 5 results of <code>/retrieve</code> for its question; <b>distilled@5</b>: the same among semantic memories only (<b>in semantic</b>: some active semantic memory holds it, ranked or not); <b>noise</b>: active semantic memories that hold no gold fact; <b>reversed active</b>: decisions the user took back that an active semantic memory still states. The raw-turns baseline keeps every turn as an episodic memory and distils nothing. The held-out split is never tuned on.</p>
${chart}
<table><thead><tr><th>scope</th><th>users</th><th>facts</th><th>kept@5 %</th><th>distilled@5 %</th><th>in semantic %</th><th>raw turns kept@5 %</th><th>noise</th><th>reversed active</th></tr></thead><tbody>
${table}
</tbody></table>
<p>Consolidation (server-side job duration): ${c.jobs} jobs, ${c.failed} failed, p50 ${c.p50Ms} ms, max ${c.maxMs} ms${c.longest ? `; the longest session, ${c.longest.turns} turns, took ${c.longest.ms} ms` : ''}.</p>
<h2>Facts not kept or not distilled</h2>
<table><thead><tr><th>user</th><th>split</th><th>question</th><th>expected</th><th>kept</th><th>distilled</th><th>best result</th></tr></thead><tbody>
${missed}
</tbody></table>
<h2>Noise: semantic memories that hold no gold fact</h2><ul>${noise}</ul>
<h2>Reversed decisions still active</h2><ul>${reversed || '<li>none</li>'}</ul>
<p><small>Generated ${escapeHtml(result.generatedAt)} in ${result.durationSeconds.toFixed(0)} s against ${escapeHtml(result.service.url)}${result.service.spawned ? ' (fresh memory-api and worker processes)' : ''}.</small></p>`,
  );
}
