import type { ConsolidatePayload, JobStatus } from '@hindsight/jobs';
import type { Turn, TurnRole } from '@hindsight/memory-model';
import type { WorkingMemorySearch } from './search.ts';
import type { Sessions } from './sessions.ts';

/** A turn before it has a sequence number. */
export interface NewTurn {
  role: TurnRole;
  content: string;
  timestamp: string;
  tool?: unknown;
}

export interface AppendOutcome {
  firstSeq: number;
  lastSeq: number;
  /** Turns held after the append (not yet consolidated). */
  pending: number;
}

export interface SessionSnapshot {
  /** The user the session belongs to; null when the session holds nothing. */
  userId: string | null;
  /** Highest sequence number ever given in this session (0: none). */
  lastSeq: number;
  turns: Turn[];
  ttlSeconds: number | null;
}

/** The session belongs to another user of the tenant. */
export class SessionOwnerError extends Error {
  constructor(readonly owner: string) {
    super('session belongs to another user');
    this.name = 'SessionOwnerError';
  }
}

/**
 * Working memory (DESIGN §2): per tenant and session, ordered turns with a TTL that
 * every write refreshes. Sequence numbers are never reused within a session, even
 * after a consolidation cleared the turns, so job ids built from them stay unique.
 */
export interface WorkingMemoryStore {
  /** Appends in order; throws `SessionOwnerError` when the session is another user's. */
  append(tenant: string, sessionId: string, userId: string, turns: readonly NewTurn[]): Promise<AppendOutcome>;
  /** Turns oldest first; `throughSeq` keeps only those up to it, `last` only the newest n. */
  read(tenant: string, sessionId: string, options?: { throughSeq?: number; last?: number }): Promise<SessionSnapshot>;
  /** Removes the turns up to `throughSeq`, keeping the session's sequence; returns how many went. */
  clearThrough(tenant: string, sessionId: string, throughSeq: number): Promise<number>;
  /** Removes the session entirely; true when it existed. */
  deleteSession(tenant: string, sessionId: string): Promise<boolean>;
  /**
   * Removes every session of a user (erasure); returns each with the text of the turns it held,
   * whose cached vectors the erasure drops next.
   */
  deleteUser(tenant: string, userId: string): Promise<ErasedSession[]>;
  /** The user's sessions that still hold working memory, most recently written first. */
  userSessions(tenant: string, userId: string): Promise<OpenSession[]>;
}

export interface OpenSession {
  sessionId: string;
  /** Turns held now (consolidated turns are cleared). */
  turns: number;
  lastSeq: number;
  /** ISO time of the last append. */
  updatedAt: string;
}

export interface JobOwner {
  userId?: string;
  sessionId?: string;
}

export interface JobOrigin {
  /** Epoch ms the job was added to the queue. */
  createdAt: number;
  tenant?: string;
  userId?: string;
}

export interface ErasedSession {
  sessionId: string;
  turns: string[];
}

export interface ScheduledJob {
  jobId: string;
  state: JobStatus['state'];
  /** The job already existed (the trigger fired before); nothing new was enqueued. */
  deduplicated: boolean;
}

/** The producer side of the `hindsight` queue, as the session logic needs it. */
export interface ConsolidationQueue {
  /**
   * Enqueues a consolidation with its deterministic id after `delayMs`. When the job
   * exists already it is returned; a delayed one is brought forward when `delayMs` is 0.
   */
  schedule(payload: ConsolidatePayload, delayMs: number): Promise<ScheduledJob>;
  /** Drops a job that has not started (delayed or waiting); running and finished jobs stay. */
  cancelPending(jobId: string): Promise<boolean>;
  status(jobId: string): Promise<{ status: JobStatus; tenant: string | undefined } | undefined>;
  /** Removes every not-running job carrying this tenant and user (or session), finished ones too; returns their ids. */
  removeJobsOf(tenant: string, owner: JobOwner): Promise<string[]>;
  /** Ids of the jobs of this tenant and user (or session) a worker is running now. */
  runningJobsOf(tenant: string, owner: JobOwner): Promise<string[]>;
  /** When a job was enqueued and for whom (the erasure fence); undefined when no such job exists. */
  jobOrigin(jobId: string): Promise<JobOrigin | undefined>;
  /**
   * Removes every entry of these jobs from the queue's event stream (progress events carry the
   * extracted facts), so that nothing of them is kept; returns how many entries went.
   */
  scrubJobEvents(jobIds: readonly string[]): Promise<number>;
  depth(): Promise<Record<string, number>>;
}

/** Working memory, sessions and the hindsight queue producer, as the routes and the domain use them. */
export interface HindsightDeps {
  working: WorkingMemoryStore;
  queue: ConsolidationQueue;
  sessions: Sessions;
  /** The read path's candidate source for the current session. */
  sessionSearch: WorkingMemorySearch;
}
