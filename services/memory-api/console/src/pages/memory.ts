import type { MemoryRecord } from '@hindsight/memory-model';
import { useState } from 'preact/hooks';
import { go, useConsole } from '../context.ts';
import { Badge, ErrorNote, field, html, Loading, Section, splitList, useAction, useLoad, When } from '../ui.ts';

interface History {
  id: string;
  status: string;
  superseded_by: string | null;
  entries: Array<{ memory_id: string; at: string; action: string; content: string; note?: string; reason?: string }>;
}

/** One memory: its fields, its history (merges, the supersede chain, each with its reason), edit, restore, forget. */
export function MemoryPage({ id }: { id: string }) {
  const { api } = useConsole();
  const path = `/v1/memories/${encodeURIComponent(id)}`;
  const memory = useLoad(async () => {
    const [record, history] = await Promise.all([api.get<MemoryRecord>(path), api.get<History>(`${path}/history`)]);
    return { record, history };
  }, [id]);
  const [editing, setEditing] = useState(false);
  const restore = useAction(async () => {
    await api.post<MemoryRecord>(`${path}/restore`, undefined);
    memory.reload();
  });

  const record = memory.data?.record;
  return html`<${Section} title="Memory">
    <${Loading} what=${memory} />
    ${
      record &&
      html`<div class="memory" data-id=${record.id}>
        <p class="content big">${record.content}</p>
        <p class="meta">
          <${Badge}>${record.layer}</${Badge}> <${Badge}>${record.category}</${Badge}>
          <${Badge} kind=${record.status === 'active' ? 'ok' : 'warn'}>${record.status}</${Badge}>
          ${record.tags.map((tag) => html` <${Badge} kind="tag">#${tag}</${Badge}>`)}
        </p>
        <dl class="fields">
          <dt>User</dt><dd>${record.user_id}</dd>
          <dt>Occurred</dt><dd><${When} iso=${record.occurred_at} /></dd>
          <dt>Learned</dt><dd><${When} iso=${record.created_at} /></dd>
          <dt>Confidence</dt><dd>${record.confidence.toFixed(2)} (seen ${record.proof_count}×)</dd>
          <dt>Source</dt>
          <dd>
            ${record.source.kind}${record.source.session_id && html` · session <code>${record.source.session_id}</code>`}
            ${record.source.turn_ids?.length ? ` · turns ${record.source.turn_ids.join(', ')}` : ''}
            ${record.source.extractor && ` · extractor ${record.source.extractor}`}
          </dd>
          ${
            record.superseded_by &&
            html`<dt>Superseded by</dt>
            <dd><a href=${`#/memory/${encodeURIComponent(record.superseded_by)}`}>${record.superseded_by}</a></dd>`
          }
          ${record.valid_until && html`<dt>Valid until</dt><dd><${When} iso=${record.valid_until} /></dd>`}
          <dt>Id</dt><dd><code>${record.id}</code></dd>
        </dl>
        <p class="actions">
          <button type="button" onClick=${() => setEditing(!editing)} aria-expanded=${editing}>Edit</button>
          ${
            record.status !== 'active' &&
            html`<button type="button" onClick=${() => void restore.act()} disabled=${restore.busy}>Restore</button>`
          }
          <button type="button" class="danger" onClick=${() => go(`/forget/${encodeURIComponent(record.id)}`)}>
            Forget…
          </button>
        </p>
        <${ErrorNote} error=${restore.error} />
        ${
          editing &&
          html`<${EditForm}
          record=${record}
          onSaved=${() => {
            setEditing(false);
            memory.reload();
          }}
        />`
        }
        <h3>History</h3>
        <${HistoryTable} history=${memory.data?.history} current=${record.id} />
      </div>`
    }
  </${Section}>`;
}

function HistoryTable({ history, current }: { history: History | undefined; current: string }) {
  if (!history || history.entries.length === 0) return html`<p class="muted">No history.</p>`;
  return html`<div class="table-wrap">
    <table class="history">
      <thead>
        <tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Content</th><th scope="col">Reason</th><th scope="col">Memory</th></tr>
      </thead>
      <tbody>
        ${history.entries.map(
          (entry) => html`<tr data-action=${entry.action}>
            <td><${When} iso=${entry.at} /></td>
            <td><${Badge} kind=${entry.action === 'superseded' ? 'warn' : undefined}>${entry.action}</${Badge}></td>
            <td>${entry.content}${entry.note && html`<br /><span class="muted">${entry.note}</span>`}</td>
            <td>${entry.reason ? html`<code>${entry.reason}</code>` : html`<span class="muted">—</span>`}</td>
            <td>
              ${
                entry.memory_id === current
                  ? html`<span class="muted">this</span>`
                  : html`<a href=${`#/memory/${encodeURIComponent(entry.memory_id)}`}>${entry.memory_id.slice(0, 8)}</a>`
              }
            </td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** Sends only the fields the person changed, and shows the API's validation messages as they come. */
function EditForm({ record, onSaved }: { record: MemoryRecord; onSaved: () => void }) {
  const { api } = useConsole();
  const save = useAction(async (form: HTMLFormElement) => {
    const patch: Record<string, unknown> = {};
    const content = field(form, 'content');
    if (content !== record.content) patch.content = content;
    const category = field(form, 'category');
    if (category !== record.category) patch.category = category;
    const tags = splitList(field(form, 'tags'));
    if (tags.join(',') !== record.tags.join(',')) patch.tags = tags;
    const confidence = field(form, 'confidence');
    if (confidence !== String(record.confidence)) patch.confidence = confidence === '' ? null : Number(confidence);
    const importance = field(form, 'importance');
    if (importance !== String(record.importance ?? ''))
      patch.importance = importance === '' ? null : Number(importance);
    await api.patch<MemoryRecord>(`/v1/memories/${encodeURIComponent(record.id)}`, patch);
    onSaved();
  });
  return html`<form
    class="edit"
    onSubmit=${(event: Event) => {
      event.preventDefault();
      void save.act(event.currentTarget as HTMLFormElement);
    }}
  >
    <div class="row">
      <label for="edit-content">Content</label>
      <textarea id="edit-content" name="content" rows="3">${record.content}</textarea>
    </div>
    <div class="row three">
      <label>Category <input name="category" value=${record.category} /></label>
      <label>Confidence <input name="confidence" value=${String(record.confidence)} inputmode="decimal" /></label>
      <label>Importance <input name="importance" value=${String(record.importance ?? '')} inputmode="decimal" /></label>
    </div>
    <div class="row">
      <label for="edit-tags">Tags <span class="muted">(comma-separated)</span></label>
      <input id="edit-tags" name="tags" value=${record.tags.join(', ')} />
    </div>
    <button type="submit" class="primary" disabled=${save.busy}>Save</button>
    <${ErrorNote} error=${save.error} />
  </form>`;
}
