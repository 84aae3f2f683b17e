import { ConflictError, NotFoundError } from '@hindsight/errors';
import { consolidationJobId } from '@hindsight/jobs';
import type { Logger } from '@hindsight/logger';
import type {
  AppendTurnsResponse,
  EndSessionResponse,
  MemoryInput,
  SessionTurns,
  TurnInput,
  WriteResult,
} from '@hindsight/memory-model';
import { DEFAULT_USER } from '../memory/write.ts';
import { type ConsolidationQueue, type NewTurn, SessionOwnerError, type WorkingMemoryStore } from './port.ts';

export interface SessionSettings {
  /** Consolidate a session this long after its last turn; 0 turns the idle trigger off. */
  idleSeconds: number;
  /** Consolidate as soon as this many turns wait; 0 turns the size trigger off. */
  maxTurns: number;
}

export interface SessionDeps {
  working: WorkingMemoryStore;
  queue: ConsolidationQueue;
  settings: SessionSettings;
  log: Logger;
}

/**
 * Sessions and their working memory: appending turns (which arms the idle and size
 * triggers), reading, clearing, ending (which enqueues the hindsight consolidation).
 */
export class Sessions {
  constructor(private readonly deps: SessionDeps) {}

  async appendTurns(tenant: string, sessionId: string, inputs: readonly TurnInput[]): Promise<AppendTurnsResponse> {
    const userIds = new Set(inputs.map((t) => t.user_id));
    if (userIds.size > 1) throw new ConflictError('all turns of one request must have the same user_id');
    const userId = inputs[0]?.user_id as string;
    const now = new Date().toISOString();
    const turns: NewTurn[] = inputs.map((t) => ({
      role: t.role,
      content: t.content,
      timestamp: t.timestamp ? new Date(t.timestamp).toISOString() : now,
      ...(t.tool !== undefined ? { tool: t.tool } : {}),
    }));
    const outcome = await this.append(tenant, sessionId, userId, turns);
    const reply: AppendTurnsResponse = {
      session_id: sessionId,
      turn_ids: turns.map((_, i) => `t${outcome.firstSeq + i}`),
      last_seq: outcome.lastSeq,
      pending_turns: outcome.pending,
    };
    const jobId = await this.armTriggers(
      tenant,
      sessionId,
      userId,
      outcome.firstSeq - 1,
      outcome.lastSeq,
      outcome.pending,
    );
    if (jobId) reply.consolidation_job_id = jobId;
    return reply;
  }

  /** `/store` with `memory_type: "working"`: a scratch note in the session's working memory. */
  async appendNote(tenant: string, input: MemoryInput & { session_id: string }): Promise<WriteResult> {
    const userId = input.user_id ?? (await this.sessionOwner(tenant, input.session_id)) ?? DEFAULT_USER;
    const note: NewTurn = {
      role: 'note',
      content: input.content,
      timestamp: input.occurred_at ? new Date(input.occurred_at).toISOString() : new Date().toISOString(),
    };
    const outcome = await this.append(tenant, input.session_id, userId, [note]);
    await this.armTriggers(tenant, input.session_id, userId, outcome.firstSeq - 1, outcome.lastSeq, outcome.pending);
    return { id: `${input.session_id}#t${outcome.lastSeq}`, status: 'created', layer: 'working' };
  }

  async sessionOwner(tenant: string, sessionId: string): Promise<string | null> {
    return (await this.deps.working.read(tenant, sessionId, { last: 0 })).userId;
  }

  async turns(tenant: string, sessionId: string, throughSeq?: number): Promise<SessionTurns> {
    const snapshot = await this.deps.working.read(tenant, sessionId, throughSeq !== undefined ? { throughSeq } : {});
    return {
      session_id: sessionId,
      user_id: snapshot.userId,
      turns: snapshot.turns,
      last_seq: snapshot.lastSeq,
      ttl_seconds: snapshot.ttlSeconds,
    };
  }

  /** Ends a session: enqueues (or finds) the consolidation of every turn so far. */
  async end(tenant: string, sessionId: string, userId: string): Promise<EndSessionResponse> {
    const snapshot = await this.deps.working.read(tenant, sessionId, { last: 0 });
    if (snapshot.lastSeq === 0 || snapshot.userId === null) throw new NotFoundError('session', sessionId);
    if (snapshot.userId !== userId) throw new ConflictError(`session ${sessionId} belongs to another user`);
    const job = await this.deps.queue.schedule(
      { tenant, user_id: userId, session_id: sessionId, through_seq: snapshot.lastSeq, trigger: 'end' },
      0,
    );
    return { job_id: job.jobId, state: job.state, deduplicated: job.deduplicated };
  }

  /** Removes consolidated turns (the worker, after every write succeeded). */
  async clearThrough(tenant: string, sessionId: string, throughSeq: number): Promise<number> {
    return this.deps.working.clearThrough(tenant, sessionId, throughSeq);
  }

  /** Forgets a session: its working memory and any consolidation that has not started. */
  async delete(tenant: string, sessionId: string): Promise<{ deleted: boolean; jobs: number }> {
    const jobs = await this.deps.queue.removeJobsOf(tenant, { sessionId });
    // What those jobs extracted from the session travelled through the queue's event stream too.
    await this.deps.queue.scrubJobEvents(jobs);
    const deleted = await this.deps.working.deleteSession(tenant, sessionId);
    return { deleted, jobs: jobs.length };
  }

  private async append(tenant: string, sessionId: string, userId: string, turns: NewTurn[]) {
    try {
      return await this.deps.working.append(tenant, sessionId, userId, turns);
    } catch (error) {
      if (error instanceof SessionOwnerError) {
        throw new ConflictError(`session ${sessionId} belongs to another user; use a new session id`);
      }
      throw error;
    }
  }

  /**
   * Size trigger: enough turns wait → consolidate now. Otherwise the idle trigger,
   * debounced: the delayed job armed by the previous append is dropped and one for
   * the new turn count is armed. Returns the id of a consolidation started now.
   */
  private async armTriggers(
    tenant: string,
    sessionId: string,
    userId: string,
    previousSeq: number,
    lastSeq: number,
    pending: number,
  ): Promise<string | undefined> {
    const { idleSeconds, maxTurns } = this.deps.settings;
    const payload = { tenant, user_id: userId, session_id: sessionId, through_seq: lastSeq };
    if (previousSeq > 0 && idleSeconds > 0) {
      await this.deps.queue
        .cancelPending(consolidationJobId(tenant, sessionId, previousSeq))
        .catch((error: unknown) => {
          // A stale idle job only consolidates early turns early; it is not worth failing the append.
          this.deps.log.warn({ err: error, sessionId }, 'could not drop the previous idle consolidation');
        });
    }
    if (maxTurns > 0 && pending >= maxTurns) {
      const job = await this.deps.queue.schedule({ ...payload, trigger: 'size' }, 0);
      return job.jobId;
    }
    if (idleSeconds > 0) await this.deps.queue.schedule({ ...payload, trigger: 'idle' }, idleSeconds * 1000);
    return undefined;
  }
}
