import type { MemoryRecord } from '@hindsight/memory-model';
import { useState } from 'preact/hooks';
import { STATUSES } from '../../../../../shared/memory-model/src/vocabulary.ts';
import { useConsole } from '../context.ts';
import { byOccurredDesc, READ_CAP, readMemories } from '../memories.ts';
import { Badge, html, Loading, Section, useLoad, When } from '../ui.ts';
import { NeedUser } from './need-user.ts';

export function FactsPage() {
  const { api, user } = useConsole();
  const [status, setStatus] = useState('active');
  const memories = useLoad(
    async () =>
      user ? readMemories(api, { user_id: user, memory_type: 'semantic', ...(status ? { status } : {}) }) : undefined,
    [user, status],
  );
  if (!user) return html`<${NeedUser} page="Facts" />`;
  const byCategory = new Map<string, MemoryRecord[]>();
  for (const memory of [...(memories.data?.items ?? [])].sort(byOccurredDesc)) {
    byCategory.set(memory.category, [...(byCategory.get(memory.category) ?? []), memory]);
  }
  return html`<${Section}
    title=${`Facts of ${user}`}
    actions=${html`<label class="inline-label"
        >Status
        <select value=${status} onChange=${(e: Event) => setStatus((e.currentTarget as HTMLSelectElement).value)}>
          ${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
          <option value="">any</option>
        </select></label
      >
      <button type="button" onClick=${memories.reload}>Refresh</button>`}
  >
    <p class="muted">Semantic memories by category. Open one for its history, to edit, restore or forget it.</p>
    <${Loading} what=${memories} />
    ${memories.data?.capped && html`<p class="warn">Showing the first ${READ_CAP} memories only.</p>`}
    ${memories.data && byCategory.size === 0 && html`<p class="muted">No ${status} semantic memories.</p>`}
    ${[...byCategory.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([category, items]) => html`<article class="category">
          <h3>${category} <span class="muted">(${items.length})</span></h3>
          <ul class="facts">
            ${items.map(
              (m) => html`<li data-id=${m.id}>
                <a href=${`#/memory/${encodeURIComponent(m.id)}`}>${m.content}</a>
                <span class="muted">
                  · confidence ${m.confidence.toFixed(2)} · seen ${m.proof_count}× · <${When} iso=${m.occurred_at} />
                </span>
                ${m.status !== 'active' && html` <${Badge} kind="warn">${m.status}</${Badge}>`}
              </li>`,
            )}
          </ul>
        </article>`,
      )}
  </${Section}>`;
}
