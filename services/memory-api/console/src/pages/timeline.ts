import type { MemoryRecord } from '@hindsight/memory-model';
import { useConsole } from '../context.ts';
import { byOccurredDesc, READ_CAP, readMemories } from '../memories.ts';
import { Badge, html, Loading, Section, useLoad, When } from '../ui.ts';
import { NeedUser } from './need-user.ts';

interface SessionGroup {
  sessionId: string | null;
  summary: MemoryRecord | undefined;
  events: MemoryRecord[];
  newest: string;
  oldest: string;
}

/** Episodic memories grouped by session, sessions newest first; a session's summary heads its group. */
function groupBySession(memories: readonly MemoryRecord[]): SessionGroup[] {
  const groups = new Map<string, SessionGroup>();
  for (const memory of [...memories].sort(byOccurredDesc)) {
    const key = memory.session_id ?? '';
    const group = groups.get(key) ?? {
      sessionId: memory.session_id,
      summary: undefined,
      events: [],
      newest: memory.occurred_at,
      oldest: memory.occurred_at,
    };
    if (memory.category === 'summary' && memory.session_id && !group.summary) group.summary = memory;
    else group.events.push(memory);
    group.oldest = memory.occurred_at;
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => b.newest.localeCompare(a.newest));
}

export function TimelinePage() {
  const { api, user } = useConsole();
  const memories = useLoad(
    async () => (user ? readMemories(api, { user_id: user, memory_type: 'episodic', status: 'active' }) : undefined),
    [user],
  );
  if (!user) return html`<${NeedUser} page="Timeline" />`;
  const groups = memories.data ? groupBySession(memories.data.items) : [];
  return html`<${Section}
    title=${`Timeline of ${user}`}
    actions=${html`<button type="button" onClick=${memories.reload}>Refresh</button>`}
  >
    <p class="muted">Active episodic memories by when they happened (occurred_at), grouped by session.</p>
    <${Loading} what=${memories} />
    ${memories.data?.capped && html`<p class="warn">Showing the first ${READ_CAP} memories only.</p>`}
    ${memories.data && groups.length === 0 && html`<p class="muted">No episodic memories.</p>`}
    ${groups.map(
      (group) => html`<article class="session-group" data-session=${group.sessionId ?? ''}>
        <h3>
          ${group.sessionId ? html`Session <code>${group.sessionId}</code>` : 'Outside any session'}
          <span class="muted"> · <${When} iso=${group.oldest} /> – <${When} iso=${group.newest} /> · ${group.events.length} events</span>
        </h3>
        ${
          group.summary
            ? html`<div class="summary"><strong>Consolidation summary</strong> (<${When} iso=${group.summary.created_at} />):${' '}
              ${group.summary.content}</div>`
            : group.sessionId && html`<p class="muted">Not consolidated yet (no session summary).</p>`
        }
        <ol class="events">
          ${group.events.map(
            (event) => html`<li>
              <${When} iso=${event.occurred_at} /> <${Badge}>${event.category}</${Badge}>
              ${event.content}
              ${event.source.turn_ids?.length ? html` <span class="muted">(turns ${event.source.turn_ids.join(', ')})</span>` : null}
              ${' '}<a href=${`#/memory/${encodeURIComponent(event.id)}`} class="small">details</a>
            </li>`,
          )}
        </ol>
      </article>`,
    )}
  </${Section}>`;
}
