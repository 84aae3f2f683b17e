import type { JobStatus } from '@hindsight/jobs';
import type { EndSessionResponse, SessionTurns, UserSessions } from '@hindsight/memory-model';
import { useEffect, useState } from 'preact/hooks';
import { go, useConsole } from '../context.ts';
import { Badge, ErrorNote, field, html, Loading, Section, useAction, useLoad, When } from '../ui.ts';
import { NeedUser } from './need-user.ts';

const SETTLED: ReadonlySet<string> = new Set(['completed', 'failed']);
/** The consolidation result's counts, in the order a person reads them. */
const RESULT_COUNTS = [
  'turns',
  'extracted',
  'created',
  'merged',
  'superseded',
  'duplicates',
  'quarantined',
  'rejected',
];

export function SessionsPage({ sessionId }: { sessionId?: string }) {
  const { api, user, admin } = useConsole();
  const sessions = useLoad(
    async () => (user ? api.get<UserSessions>(`/v1/users/${encodeURIComponent(user)}/sessions`) : undefined),
    [user],
  );
  if (!user) return html`<${NeedUser} page="Sessions" />`;
  return html`<${Section}
      title=${`Sessions of ${user}`}
      actions=${html`<button type="button" onClick=${sessions.reload}>Refresh</button>`}
    >
      <p class="muted">Sessions that still hold working memory. Ending one hands it to hindsight consolidation.</p>
      <${Loading} what=${sessions} />
      ${
        sessions.data &&
        html`<ul class="sessions">
        ${sessions.data.items.length === 0 && html`<li class="muted">No open sessions.</li>`}
        ${sessions.data.items.map(
          (s) => html`<li>
            <a href=${`#/sessions/${encodeURIComponent(s.session_id)}`} aria-current=${s.session_id === sessionId ? 'page' : undefined}
              >${s.session_id}</a
            >
            <span class="muted"> · ${s.turns} turns · last written <${When} iso=${s.updated_at} /></span>
          </li>`,
        )}
      </ul>`
      }
      <form
        class="inline"
        onSubmit=${(event: Event) => {
          event.preventDefault();
          const id = field(event.currentTarget as HTMLFormElement, 'session');
          if (id) go(`/sessions/${encodeURIComponent(id)}`);
        }}
      >
        <label>Open a session by id <input name="session" required maxlength="128" /></label>
        <button type="submit">Open</button>
      </form>
      ${
        admin &&
        html`<p>
        Jobs of every tenant: <a href="/admin/queues" target="_blank" rel="noopener">queue dashboard (/admin/queues)</a>
        <span class="muted">— the browser asks for credentials: any user name, the admin key as password.</span>
      </p>`
      }
    </${Section}>
    ${sessionId && html`<${SessionView} key=${sessionId} sessionId=${sessionId} userId=${user} onEnded=${sessions.reload} />`}
    <${JobLookup} />`;
}

function SessionView({ sessionId, userId, onEnded }: { sessionId: string; userId: string; onEnded: () => void }) {
  const { api } = useConsole();
  const path = `/v1/sessions/${encodeURIComponent(sessionId)}`;
  const turns = useLoad(() => api.get<SessionTurns>(`${path}/turns`, { user_id: userId }), [sessionId, userId]);
  const [jobId, setJobId] = useState<string | undefined>(undefined);
  const end = useAction(async () => {
    const answer = await api.post<EndSessionResponse>(`${path}/end`, { user_id: userId });
    setJobId(answer.job_id);
  });
  // Once consolidated, the session's working memory is cleared: show it as it is now.
  const settled = () => {
    turns.reload();
    onEnded();
  };
  return html`<${Section} title=${`Session ${sessionId}`}>
    <${Loading} what=${turns} />
    ${
      turns.data &&
      html`<p class="muted">
        ${turns.data.turns.length} turns held${turns.data.ttl_seconds !== null ? ` · expires in ${turns.data.ttl_seconds} s` : ''}
        · last turn #${turns.data.last_seq}
      </p>
      <ol class="turns">
        ${turns.data.turns.map(
          (turn) => html`<li class=${`turn turn-${turn.role}`}>
            <span class="role">${turn.role}</span> ${turn.content}
            <span class="muted"> · #${turn.seq} · <${When} iso=${turn.timestamp} /></span>
          </li>`,
        )}
      </ol>`
    }
    <p class="actions">
      <button type="button" class="primary" onClick=${() => void end.act()} disabled=${end.busy || jobId !== undefined}>
        End session
      </button>
    </p>
    <${ErrorNote} error=${end.error} />
    ${jobId && html`<${JobView} jobId=${jobId} onSettled=${settled} />`}
  </${Section}>`;
}

/** Polls `GET /v1/jobs/:id` until the job completed or failed. */
function JobView({ jobId, onSettled }: { jobId: string; onSettled?: () => void }) {
  const { api } = useConsole();
  const [job, setJob] = useState<JobStatus | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const status = await api.get<JobStatus>(`/v1/jobs/${encodeURIComponent(jobId)}`);
        if (stopped) return;
        setJob(status);
        setError(undefined);
        if (!SETTLED.has(status.state)) timer = setTimeout(poll, 500);
        else onSettled?.();
      } catch (caught) {
        if (!stopped) setError(caught);
      }
    };
    void poll();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [jobId]);
  const result = job?.result as Record<string, unknown> | undefined;
  return html`<div class="job" data-testid="job" data-state=${job?.state ?? ''}>
    <h3>Consolidation job <code>${jobId}</code></h3>
    <${ErrorNote} error=${error} />
    ${
      job &&
      html`<p>
      <${Badge} kind=${job.state === 'completed' ? 'ok' : job.state === 'failed' ? 'warn' : undefined}>${job.state}</${Badge}>
      <span class="muted"> · attempt ${job.attempts} of ${job.max_attempts} · queued <${When} iso=${job.created_at} /></span>
    </p>`
    }
    ${job?.failed_reason && html`<p class="error">${job.failed_reason}</p>`}
    ${
      result &&
      html`<dl class="fields counts" data-testid="job-result">
      ${RESULT_COUNTS.filter((name) => typeof result[name] === 'number').map(
        (name) => html`<dt>${name}</dt><dd data-count=${name}>${String(result[name])}</dd>`,
      )}
      ${typeof result.extractor === 'string' && html`<dt>extractor</dt><dd>${result.extractor}</dd>`}
      ${typeof result.duration_ms === 'number' && html`<dt>took</dt><dd>${Math.round(result.duration_ms)} ms</dd>`}
      ${
        typeof result.summary_id === 'string' &&
        html`<dt>summary</dt><dd><a href=${`#/memory/${encodeURIComponent(result.summary_id)}`}>open</a></dd>`
      }
    </dl>`
    }
  </div>`;
}

function JobLookup() {
  const [jobId, setJobId] = useState<string | undefined>(undefined);
  return html`<${Section} title="Look up a job">
    <form
      class="inline"
      onSubmit=${(event: Event) => {
        event.preventDefault();
        setJobId(field(event.currentTarget as HTMLFormElement, 'job') || undefined);
      }}
    >
      <label>Job id <input name="job" required maxlength="256" /></label>
      <button type="submit">Show</button>
    </form>
    ${jobId && html`<${JobView} key=${jobId} jobId=${jobId} />`}
  </${Section}>`;
}
