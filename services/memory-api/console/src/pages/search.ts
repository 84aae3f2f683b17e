import type { SearchHit, SearchResponse } from '@hindsight/memory-model';
import { useState } from 'preact/hooks';
import { useConsole } from '../context.ts';
import { FilterFields, readFilters } from '../filters.ts';
import { Badge, ErrorNote, field, html, Section, useAction, When } from '../ui.ts';

const SCORE_PARTS = ['similarity', 'keyword', 'recency', 'confidence'] as const;

export function SearchPage() {
  const { api, user } = useConsole();
  const [answer, setAnswer] = useState<{ response: SearchResponse; budget: number } | undefined>(undefined);
  const search = useAction(async (form: HTMLFormElement) => {
    const number = (name: string) => (field(form, name) === '' ? undefined : Number(field(form, name)));
    const body: Record<string, unknown> = {
      query: field(form, 'query'),
      ...readFilters(form),
      ...(field(form, 'user') ? { user_id: field(form, 'user') } : {}),
      ...(field(form, 'session') ? { session_id: field(form, 'session') } : {}),
      ...(field(form, 'agent') ? { agent_id: field(form, 'agent') } : {}),
      ...(number('deadline_ms') !== undefined ? { deadline_ms: number('deadline_ms') } : {}),
      ...(number('top_k') !== undefined ? { top_k: number('top_k') } : {}),
      ...(number('token_budget') !== undefined ? { token_budget: number('token_budget') } : {}),
      ...(number('min_score') !== undefined ? { min_score: number('min_score') } : {}),
      include_superseded: (form.elements.namedItem('include_superseded') as HTMLInputElement).checked,
    };
    const response = await api.post<SearchResponse>('/v1/search', body);
    setAnswer({ response, budget: Number(body.token_budget ?? 2048) });
  });

  return html`<${Section} title="Search">
    <form
      class="search-form"
      onSubmit=${(event: Event) => {
        event.preventDefault();
        void search.act(event.currentTarget as HTMLFormElement);
      }}
    >
      <div class="row">
        <label for="search-query">Query</label>
        <input id="search-query" name="query" type="search" required maxlength="2000" autofocus />
      </div>
      <div class="row two">
        <label>User <input name="user" value=${user ?? ''} maxlength="128" /></label>
        <label>Session <span class="muted">(adds its working memory)</span> <input name="session" maxlength="128" /></label>
      </div>
      <details>
        <summary>Filters and options</summary>
        <${FilterFields} idPrefix="search" />
        <div class="row three">
          <label>Top k <input name="top_k" type="number" min="1" value="10" /></label>
          <label>Token budget <input name="token_budget" type="number" min="1" value="2048" /></label>
          <label>Min score <input name="min_score" type="number" min="0" max="1" step="0.01" placeholder="server default" /></label>
        </div>
        <div class="row two">
          <label>Agent <input name="agent" maxlength="128" /></label>
          <label>Deadline (ms) <input name="deadline_ms" type="number" min="1" placeholder="server default" /></label>
        </div>
        <label><input type="checkbox" name="include_superseded" /> Include superseded memories</label>
      </details>
      <button type="submit" class="primary" disabled=${search.busy}>Search</button>
    </form>
    <${ErrorNote} error=${search.error} />
    ${answer && html`<${SearchAnswer} response=${answer.response} budget=${answer.budget} />`}
  </${Section}>`;
}

function SearchAnswer({ response, budget }: { response: SearchResponse; budget: number }) {
  return html`<div class="answer">
    <p class="muted" aria-live="polite">
      ${response.results.length} result${response.results.length === 1 ? '' : 's'} in ${Math.round(response.took_ms)} ms
      ${response.timed_out && html` · <${Badge} kind="warn">timed out</${Badge}>`}
      ${response.dense_skipped && html` · <${Badge} kind="warn">keyword only (embedder unavailable)</${Badge}>`}
    </p>
    <ol class="results">
      ${response.results.map((hit) => html`<${Result} hit=${hit} />`)}
    </ol>
    <h3>Context, as an agent gets it</h3>
    <p class="context-meta">
      <span data-testid="context-tokens">${response.context_tokens} tokens</span> of a ${budget}-token budget ·
      truncated: <strong data-testid="context-truncated">${response.truncated ? 'yes' : 'no'}</strong>
    </p>
    <pre class="context" data-testid="context">${response.context || '(empty)'}</pre>
  </div>`;
}

function Result({ hit }: { hit: SearchHit }) {
  const { source } = hit;
  return html`<li class="result" data-id=${hit.id}>
    <p class="content">${hit.content}</p>
    <p class="meta">
      <${Badge}>${hit.layer}</${Badge}> <${Badge}>${hit.category}</${Badge}>
      ${hit.status !== 'active' && html` <${Badge} kind="warn">${hit.status}</${Badge}>`}
      ${' '}<${When} iso=${hit.occurred_at} />
      ${hit.tags.map((tag) => html` <${Badge} kind="tag">#${tag}</${Badge}>`)}
    </p>
    <div class="scores">
      <span class="score">score <strong>${hit.score.toFixed(3)}</strong></span>
      ${SCORE_PARTS.map(
        (part) => html`<span class="part" title=${`${part} ${hit.scores[part]}`}>
          ${part}
          <meter min="0" max="1" value=${Math.min(1, Math.max(0, hit.scores[part]))}></meter>
          ${hit.scores[part].toFixed(2)}
        </span>`,
      )}
    </div>
    <p class="provenance">
      source: ${source.kind}
      ${source.session_id && html` · session <code>${source.session_id}</code>`}
      ${source.turn_ids?.length ? html` · turns ${source.turn_ids.join(', ')}` : null}
      ${source.extractor && html` · extractor ${source.extractor}`}
    </p>
    ${
      hit.layer !== 'working' &&
      html`<p class="actions">
      <a href=${`#/memory/${encodeURIComponent(hit.id)}`}>History and edit</a>
      <a href=${`#/forget/${encodeURIComponent(hit.id)}`}>Forget…</a>
    </p>`
    }
  </li>`;
}
