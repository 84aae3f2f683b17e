import {
  type ConsolidatePayload,
  consolidationJobId,
  JOB_STATES,
  type JobName,
  type JobStatus,
  jobOptions,
  parsePayload,
  type RetryOverrides,
} from '@hindsight/jobs';
import type { Logger } from '@hindsight/logger';
import { type Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ConsolidationQueue, JobOrigin, JobOwner, ScheduledJob } from '../../working/port.ts';

export interface HindsightQueueOptions {
  /** memory-api's Redis client: a producer fails fast instead of queueing commands. */
  connection: Redis;
  queueName: string;
  /** BullMQ key prefix (`queueKeyPrefix(REDIS_PREFIX)`). */
  keyPrefix: string;
  retry: RetryOverrides;
  log: Logger;
}

const PENDING_STATES = ['waiting', 'delayed', 'prioritized'] as const;

/**
 * Removes the events of the jobs named in ARGV from the stream KEYS[1], for real: XDEL only
 * flags entries, whose bytes stay in the stream's nodes (and in RDB/AOF rewrites of them), so
 * the stream is rebuilt from the entries it keeps, with their ids, and its last id restored —
 * QueueEvents readers resume where they were. Returns how many entries went.
 */
const SCRUB_EVENTS = `
local erased = {}
for i = 1, #ARGV do erased[ARGV[i]] = true end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local entries = redis.call('XRANGE', KEYS[1], '-', '+')
local kept, removed = {}, 0
for _, entry in ipairs(entries) do
  local fields, job = entry[2], nil
  for f = 1, #fields, 2 do if fields[f] == 'jobId' then job = fields[f + 1] end end
  if job ~= nil and erased[job] then removed = removed + 1 else kept[#kept + 1] = entry end
end
if removed == 0 then return 0 end
local info = redis.call('XINFO', 'STREAM', KEYS[1])
local last, added = nil, nil
for f = 1, #info, 2 do
  if info[f] == 'last-generated-id' then last = info[f + 1] end
  if info[f] == 'entries-added' then added = info[f + 1] end
end
redis.call('DEL', KEYS[1])
for _, entry in ipairs(kept) do redis.call('XADD', KEYS[1], entry[1], unpack(entry[2])) end
if #kept > 0 then redis.call('XSETID', KEYS[1], last, 'ENTRIESADDED', added) end
return removed`;
const SCAN_PAGE = 500;

/** The producer of the `hindsight` queue. Payloads are validated against the catalogue before enqueueing. */
export class HindsightQueue implements ConsolidationQueue {
  readonly queue: Queue;

  constructor(private readonly options: HindsightQueueOptions) {
    this.queue = new Queue(options.queueName, { connection: options.connection, prefix: options.keyPrefix });
    this.queue.on('error', (error) => options.log.error({ err: error }, 'hindsight queue error'));
  }

  async schedule(payload: ConsolidatePayload, delayMs: number): Promise<ScheduledJob> {
    const data = parsePayload('consolidate', payload);
    const jobId = consolidationJobId(data.tenant, data.session_id, data.through_seq);
    const existing = await this.queue.getJob(jobId);
    if (existing) {
      const state = await existing.getState();
      if (state === 'delayed' && delayMs === 0) {
        // The idle timer's job for the same turns: run it now, recording what triggered it. It
        // becomes this trigger's job, so nothing was deduplicated from the caller's point of view.
        await existing.updateData(data);
        await existing.promote();
        return { jobId, state: normaliseState(await existing.getState()), deduplicated: false };
      }
      return { jobId, state: normaliseState(state), deduplicated: true };
    }
    const job = await this.queue.add('consolidate', data, {
      ...jobOptions('consolidate', this.options.retry),
      jobId,
      ...(delayMs > 0 ? { delay: delayMs } : {}),
    });
    return { jobId, state: normaliseState(await job.getState()), deduplicated: job.id !== jobId };
  }

  /** Enqueues any catalogued job (maintenance); validated like every other. */
  async add<N extends JobName>(name: N, payload: unknown, jobId?: string): Promise<string> {
    const data = parsePayload(name, payload);
    const job = await this.queue.add(name, data, {
      ...jobOptions(name, this.options.retry),
      ...(jobId ? { jobId } : {}),
    });
    return job.id ?? '';
  }

  async cancelPending(jobId: string): Promise<boolean> {
    const job = await this.queue.getJob(jobId);
    if (!job) return false;
    const state = await job.getState();
    if (!(PENDING_STATES as readonly string[]).includes(state)) return false;
    await job.remove();
    return true;
  }

  async status(jobId: string): Promise<{ status: JobStatus; tenant: string | undefined } | undefined> {
    // State first, then the job: a job that finished in between is read with its result, never
    // reported "completed" with the result it did not have yet when it was read.
    const state = await this.queue.getJobState(jobId);
    const job = await this.queue.getJob(jobId);
    if (!job) return undefined;
    return { status: await describeJob(job, state), tenant: tenantOf(job) };
  }

  async removeJobsOf(tenant: string, owner: JobOwner): Promise<string[]> {
    const removed: string[] = [];
    // Finished jobs are removed too: their data, progress and results name the user's session.
    for (const type of [...PENDING_STATES, 'completed', 'failed'] as const) {
      for (let start = 0; ; start += SCAN_PAGE) {
        const jobs = await this.queue.getJobs([type], start, start + SCAN_PAGE - 1);
        if (jobs.length === 0) break;
        let removedHere = 0;
        for (const job of jobs) {
          if (!belongsTo(job, tenant, owner)) continue;
          await job.remove();
          removed.push(job.id ?? '');
          removedHere += 1;
        }
        // Removing shifts the ranges; re-read the same page when something went.
        if (removedHere > 0) start -= SCAN_PAGE;
        if (jobs.length < SCAN_PAGE && removedHere === 0) break;
      }
    }
    return removed;
  }

  async runningJobsOf(tenant: string, owner: JobOwner): Promise<string[]> {
    const running = await this.queue.getJobs(['active'], 0, -1);
    return running.filter((job) => belongsTo(job, tenant, owner)).map((job) => job.id ?? '');
  }

  async jobOrigin(jobId: string): Promise<JobOrigin | undefined> {
    const job = await this.queue.getJob(jobId);
    if (!job) return undefined;
    const data = job.data as { tenant?: unknown; user_id?: unknown } | undefined;
    return {
      createdAt: job.timestamp,
      ...(typeof data?.tenant === 'string' ? { tenant: data.tenant } : {}),
      ...(typeof data?.user_id === 'string' ? { userId: data.user_id } : {}),
    };
  }

  async scrubJobEvents(jobIds: readonly string[]): Promise<number> {
    if (jobIds.length === 0) return 0;
    const removed = await this.options.connection.eval(SCRUB_EVENTS, 1, this.queue.toKey('events'), ...jobIds);
    return Number(removed);
  }

  async depth(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized');
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

function belongsTo(job: Job, tenant: string, owner: JobOwner): boolean {
  const data = job.data as Record<string, unknown> | undefined;
  if (!data || data.tenant !== tenant) return false;
  if (owner.userId !== undefined && data.user_id !== owner.userId) return false;
  return owner.sessionId === undefined || data.session_id === owner.sessionId;
}

function tenantOf(job: Job): string | undefined {
  const tenant = (job.data as { tenant?: unknown } | undefined)?.tenant;
  return typeof tenant === 'string' ? tenant : undefined;
}

function normaliseState(state: string): JobStatus['state'] {
  return (JOB_STATES as readonly string[]).includes(state) ? (state as JobStatus['state']) : 'unknown';
}

const iso = (ms: number | undefined) => (ms ? new Date(ms).toISOString() : null);

export async function describeJob(job: Job, state?: string): Promise<JobStatus> {
  const status: JobStatus = {
    id: job.id ?? '',
    name: job.name,
    state: normaliseState(state ?? (await job.getState())),
    attempts: job.attemptsMade,
    max_attempts: job.opts.attempts ?? 1,
    created_at: new Date(job.timestamp).toISOString(),
    processed_at: iso(job.processedOn),
    finished_at: iso(job.finishedOn),
  };
  if (job.returnvalue !== undefined && job.returnvalue !== null) status.result = job.returnvalue;
  if (job.failedReason) status.failed_reason = job.failedReason;
  return status;
}
