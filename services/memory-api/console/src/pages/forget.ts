import type { EraseUserResponse, ForgetResponse } from '@hindsight/memory-model';
import { useState } from 'preact/hooks';
import { useConsole } from '../context.ts';
import { FilterFields, readFilters, StatusChecks } from '../filters.ts';
import { Badge, checkedValues, ErrorNote, field, html, Section, useAction, When } from '../ui.ts';

/**
 * Forgetting always runs as a dry run first and shows what would go; only the confirmation
 * deletes, with the very filter that was previewed. Any change to the filter drops the preview.
 */
export function ForgetPage({ memoryId }: { memoryId?: string }) {
  const { api, user } = useConsole();
  const [preview, setPreview] = useState<{ filter: Record<string, unknown>; answer: ForgetResponse } | undefined>(
    undefined,
  );
  const [done, setDone] = useState<{ answer: ForgetResponse; previewed: number } | undefined>(undefined);
  const dryRun = useAction(async (form: HTMLFormElement) => {
    setDone(undefined);
    const statuses = checkedValues(form, 'status');
    const before = field(form, 'before');
    const filter: Record<string, unknown> = {
      ...readFilters(form),
      ...(field(form, 'memory_id') ? { memory_id: field(form, 'memory_id') } : {}),
      ...(field(form, 'user') ? { user_id: field(form, 'user') } : {}),
      ...(field(form, 'session') ? { session_id: field(form, 'session') } : {}),
      ...(statuses.length > 0 ? { status: statuses } : {}),
      ...(before ? { before: new Date(before).toISOString() } : {}),
    };
    const answer = await api.post<ForgetResponse>('/v1/forget', { ...filter, dry_run: true });
    setPreview({ filter, answer });
  });
  const confirm = useAction(async () => {
    if (!preview) return;
    const answer = await api.post<ForgetResponse>('/v1/forget', { ...preview.filter, dry_run: false });
    setPreview(undefined);
    setDone({ answer, previewed: preview.answer.count });
  });

  return html`<${Section} title="Forget">
      <form
        class="forget-form"
        onInput=${() => setPreview(undefined)}
        onSubmit=${(event: Event) => {
          event.preventDefault();
          void dryRun.act(event.currentTarget as HTMLFormElement);
        }}
      >
        <div class="row two">
          <label>Memory id <input name="memory_id" value=${memoryId ?? ''} maxlength="128" /></label>
          <label>User <input name="user" value=${memoryId ? '' : (user ?? '')} maxlength="128" /></label>
        </div>
        <div class="row two">
          <label>Session <input name="session" maxlength="128" /></label>
          <label>Learned before <input name="before" type="datetime-local" /></label>
        </div>
        <details open=${!memoryId}>
          <summary>More filters</summary>
          <${FilterFields} idPrefix="forget" />
          <${StatusChecks} />
        </details>
        <button type="submit" class="primary" disabled=${dryRun.busy}>Preview what would be forgotten</button>
      </form>
      <${ErrorNote} error=${dryRun.error} />
      ${preview && html`<${Preview} answer=${preview.answer} busy=${confirm.busy} onConfirm=${() => void confirm.act()} onCancel=${() => setPreview(undefined)} />`}
      <${ErrorNote} error=${confirm.error} />
      ${done && html`<${Forgotten} answer=${done.answer} previewed=${done.previewed} />`}
    </${Section}>
    <${EraseUser} />`;
}

/** The filter is run again on confirmation: memories written or changed meanwhile make the count differ, and it says so. */
function Forgotten({ answer, previewed }: { answer: ForgetResponse; previewed: number }) {
  return html`<p class="ok" role="status" data-testid="forgotten">
      Forgot ${answer.count} memor${answer.count === 1 ? 'y' : 'ies'}.
    </p>
    ${
      answer.count !== previewed &&
      html`<p class="warn" role="status">
      The preview showed ${previewed}: memories matching the filter were written, changed or forgotten in between.
    </p>`
    }`;
}

function Preview({
  answer,
  busy,
  onConfirm,
  onCancel,
}: {
  answer: ForgetResponse;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const shown = answer.preview ?? [];
  return html`<div class="preview" data-testid="forget-preview">
    <h3>Dry run: ${answer.count} memor${answer.count === 1 ? 'y' : 'ies'} would be forgotten</h3>
    <ul>
      ${shown.map(
        (m) => html`<li data-id=${m.id}>
          <${Badge}>${m.layer}</${Badge}> <${Badge}>${m.category}</${Badge}>
          ${m.status !== 'active' && html`<${Badge} kind="warn">${m.status}</${Badge}>`} ${m.content}
          <span class="muted"> · ${m.user_id} · <${When} iso=${m.occurred_at} /></span>
        </li>`,
      )}
    </ul>
    ${answer.count > shown.length && html`<p class="muted">…and ${answer.count - shown.length} more.</p>`}
    ${
      answer.count > 0
        ? html`<p class="actions">
          <button type="button" class="danger" onClick=${onConfirm} disabled=${busy}>
            Forget ${answer.count} memor${answer.count === 1 ? 'y' : 'ies'} for good
          </button>
          <button type="button" onClick=${onCancel}>Cancel</button>
        </p>`
        : html`<p class="muted">Nothing matches: nothing would be forgotten.</p>`
    }
  </div>`;
}

/** `DELETE /v1/users/:id` with the id typed twice; the receipt the API answers is shown as it is. */
function EraseUser() {
  const { api, user } = useConsole();
  const [receipt, setReceipt] = useState<EraseUserResponse | undefined>(undefined);
  const erase = useAction(async (form: HTMLFormElement) => {
    const id = field(form, 'erase_user');
    if (id !== field(form, 'erase_confirm')) throw new Error('type the same user id twice to erase the user');
    setReceipt(await api.delete<EraseUserResponse>(`/v1/users/${encodeURIComponent(id)}`));
  });
  return html`<${Section} title="Erase a user">
    <p class="muted">
      Deletes everything of one user: memories of every layer, working memory, queued jobs, cached replies and
      vectors. The API answers a receipt, also kept as a tombstone without content. This cannot be undone.
    </p>
    <form
      class="inline"
      onSubmit=${(event: Event) => {
        event.preventDefault();
        void erase.act(event.currentTarget as HTMLFormElement);
      }}
    >
      <label>User id <input name="erase_user" value=${user ?? ''} required maxlength="128" /></label>
      <label>Type it again <input name="erase_confirm" required maxlength="128" autocomplete="off" /></label>
      <button type="submit" class="danger" disabled=${erase.busy}>Erase user</button>
    </form>
    <${ErrorNote} error=${erase.error} />
    ${
      receipt &&
      html`<div class="receipt" data-testid="erase-receipt">
      <h3>Erasure receipt</h3>
      <pre>${JSON.stringify(receipt, null, 2)}</pre>
    </div>`
    }
  </${Section}>`;
}
