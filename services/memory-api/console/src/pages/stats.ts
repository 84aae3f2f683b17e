import type { DebugMemory, MemoryRecord } from '@hindsight/memory-model';
import { useConsole } from '../context.ts';
import { readMemories } from '../memories.ts';
import { parseHistogram } from '../prometheus.ts';
import { type Bar, BarChart, html, Loading, Section, useLoad } from '../ui.ts';

const DAYS = 30;
const SEARCH_LATENCY = 'hindsight_search_duration_seconds';

/** Memories learned per day over the last DAYS days (local dates), oldest first. */
function perDay(memories: readonly MemoryRecord[], now: Date): Bar[] {
  const day = (date: Date) => `${date.getMonth() + 1}/${date.getDate()}`;
  const counts = new Map<string, number>();
  for (const memory of memories) {
    const label = day(new Date(memory.created_at));
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const bars: Bar[] = [];
  for (let back = DAYS - 1; back >= 0; back--) {
    const date = new Date(now.getFullYear(), now.getMonth(), now.getDate() - back);
    const label = day(date);
    bars.push({
      label: back % 5 === 0 ? label : '',
      value: counts.get(label) ?? 0,
      title: `${label}: ${counts.get(label) ?? 0}`,
    });
  }
  return bars;
}

export function StatsPage() {
  const { api, user, admin, tenant } = useConsole();
  const memories = useLoad(async () => (user ? readMemories(api, { user_id: user }) : undefined), [user]);
  const latency = useLoad(async () => parseHistogram(await api.metrics(), SEARCH_LATENCY), []);
  const debug = useLoad(
    async () => (admin ? api.get<DebugMemory>('/debug/memory', { tenant }) : undefined),
    [admin, tenant],
  );
  const buckets = latency.data?.buckets ?? [];
  return html`<${Section}
      title="Memories per day"
      actions=${html`<button type="button" onClick=${memories.reload}>Refresh</button>`}
    >
      ${!user && html`<p>Pick a user on the <a href="#/users">Users</a> page to chart their memories.</p>`}
      <${Loading} what=${memories} />
      ${
        memories.data &&
        html`<${BarChart}
        bars=${perDay(memories.data.items, new Date())}
        unit="memories"
        label=${`Long-term memories of ${user} learned per day, last ${DAYS} days (${memories.data.items.length} in all${memories.data.capped ? ', first 5000 read' : ''})`}
      />`
      }
    </${Section}>
    <${Section} title="Retrieval latency" actions=${html`<button type="button" onClick=${latency.reload}>Refresh</button>`}>
      <${Loading} what=${latency} />
      ${
        latency.data &&
        html`<p data-testid="latency-summary">
          ${latency.data.count} searches since this memory-api process started
          ${latency.data.count > 0 && html` · mean ${((latency.data.sum / latency.data.count) * 1000).toFixed(1)} ms`}
        </p>
        <${BarChart}
          bars=${buckets.map((b) => ({ label: b.label, value: b.count, title: `${b.label}: ${b.count} searches` }))}
          unit="searches"
          label="Searches per latency bucket (from /metrics, hindsight_search_duration_seconds, every tenant of this process)"
        />`
      }
    </${Section}>
    <${Section} title="Memory store (/debug/memory)">
      ${!admin && html`<p class="muted">Only the admin key sees /debug/memory: log in with it (and a tenant) for these figures.</p>`}
      <${Loading} what=${debug} />
      ${debug.data && html`<${DebugTable} debug=${debug.data} />`}
    </${Section}>`;
}

function DebugTable({ debug }: { debug: DebugMemory }) {
  const statuses = [...new Set(Object.values(debug.layers).flatMap((byStatus) => Object.keys(byStatus)))].sort();
  return html`<div class="table-wrap" data-testid="debug-memory">
      <table>
        <thead>
          <tr><th scope="col">Layer</th>${statuses.map((s) => html`<th scope="col" class="num">${s}</th>`)}</tr>
        </thead>
        <tbody>
          ${Object.entries(debug.layers).map(
            ([layer, byStatus]) => html`<tr>
              <th scope="row">${layer}</th>
              ${statuses.map((s) => html`<td class="num">${byStatus[s] ?? 0}</td>`)}
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <dl class="fields">
      <dt>Total</dt><dd>${debug.total}</dd>
      <dt>Last write</dt><dd>${debug.last_write_at ?? '—'}</dd>
      <dt>Searches</dt><dd>${debug.retrieval.searches} (${debug.retrieval.with_results} with results, hit rate ${debug.retrieval.hit_rate ?? '—'})</dd>
      <dt>Queue</dt><dd>${
        debug.queue
          ? Object.entries(debug.queue)
              .map(([state, n]) => `${state} ${n}`)
              .join(' · ')
          : '—'
      }</dd>
      <dt>Since</dt><dd>${debug.since}</dd>
    </dl>`;
}
