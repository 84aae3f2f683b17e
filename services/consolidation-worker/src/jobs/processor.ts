import type { ConsolidatePayload } from '@hindsight/jobs';
import {
  InvalidJobPayloadError,
  isJobName,
  type JobName,
  jobOptions,
  parsePayload,
  summaryJobId,
} from '@hindsight/jobs';
import type { Logger } from '@hindsight/logger';
import { type MemoryApiClient, MemoryApiError } from '@hindsight/memory-client';
import { type Job, type Queue, UnrecoverableError } from 'bullmq';
import {
  consolidateSession,
  type ExtractionCheckpoint,
  SessionMismatchError,
} from '../consolidation/consolidate-session.ts';
import { ExtractionBudgetError, type Extractor } from '../extraction/port.ts';
import { runSummarize } from '../maintenance/summarize.ts';
import type { WorkerMetrics } from '../metrics.ts';

export interface ProcessorDeps {
  /** memory-api acting for a tenant; with a job id, every call names the job (the erasure fence). */
  apiFor(tenant?: string, jobId?: string): MemoryApiClient;
  extractor: Extractor;
  /** The worker's own producer: it enqueues profile refreshes after consolidations. */
  queue: Queue;
  summaryDelayMs: number;
  metrics: WorkerMetrics;
  log: Logger;
}

/** Inputs that no retry can fix; BullMQ fails them at once instead of backing off. */
function isUnrecoverable(error: unknown): boolean {
  return (
    error instanceof InvalidJobPayloadError ||
    error instanceof SessionMismatchError ||
    error instanceof ExtractionBudgetError ||
    // The job's user was erased while it waited or ran: it may never write for them again.
    (error instanceof MemoryApiError && error.code === 'user_erased')
  );
}

/**
 * The worker's processor: validates every job against the catalogue, dispatches by
 * name, times it, and turns hopeless inputs into `UnrecoverableError`.
 */
export function createProcessor(deps: ProcessorDeps) {
  return async (job: Job): Promise<unknown> => {
    const name = job.name;
    const stopTimer = deps.metrics.jobDuration.startTimer({ job: name });
    try {
      if (!isJobName(name)) throw new UnrecoverableError(`unknown job name "${name}"`);
      const output = await run(deps, name, job);
      stopTimer({ outcome: 'completed' });
      return output;
    } catch (error) {
      stopTimer({ outcome: 'failed' });
      deps.log.error({ err: error, jobId: job.id, job: name, attempt: job.attemptsMade + 1 }, 'job failed');
      if (isUnrecoverable(error)) throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
      throw error;
    }
  };
}

async function run(deps: ProcessorDeps, name: JobName, job: Job): Promise<unknown> {
  switch (name) {
    case 'consolidate': {
      const payload = parsePayload('consolidate', job.data);
      const result = await consolidateSession(
        {
          api: deps.apiFor(payload.tenant, job.id),
          extractor: deps.extractor,
          log: deps.log,
          ...checkpointOf(job),
          saveCheckpoint: (checkpoint) => job.updateProgress(checkpoint as unknown as object),
          onItem: (status) => deps.metrics.items.inc({ status }),
        },
        job.id ?? '',
        payload,
      );
      if (result.tokens > 0) deps.metrics.llmTokens.inc(result.tokens);
      if (result.turns > 0) await enqueueProfileRefresh(deps, job.id ?? '', payload);
      return result;
    }
    case 'decay': {
      parsePayload('decay', job.data);
      return deps.apiFor().runDecay();
    }
    case 'summarize': {
      const payload = parsePayload('summarize', job.data);
      return runSummarize(
        {
          apiFor: (tenant) => deps.apiFor(tenant, job.id),
          recentlyConsolidated: (hours) => recentlyConsolidated(deps.queue, hours),
        },
        payload,
      );
    }
  }
}

function checkpointOf(job: Job): { checkpoint?: ExtractionCheckpoint } {
  const progress = job.progress as Partial<ExtractionCheckpoint> | number | undefined;
  if (
    progress &&
    typeof progress === 'object' &&
    Array.isArray(progress.items) &&
    typeof progress.through_seq === 'number'
  ) {
    return { checkpoint: progress as ExtractionCheckpoint };
  }
  return {};
}

async function enqueueProfileRefresh(deps: ProcessorDeps, jobId: string, payload: ConsolidatePayload): Promise<void> {
  const data = parsePayload('summarize', { tenant: payload.tenant, user_id: payload.user_id });
  await deps.queue.add('summarize', data, {
    ...jobOptions('summarize'),
    jobId: summaryJobId(payload.tenant, payload.user_id, jobId),
    delay: deps.summaryDelayMs,
  });
}

/** Users whose consolidations finished within the window, read from the queue's completed jobs. */
async function recentlyConsolidated(queue: Queue, hours: number): Promise<Array<{ tenant: string; userId: string }>> {
  const since = Date.now() - hours * 3_600_000;
  const seen = new Map<string, { tenant: string; userId: string }>();
  const page = 500;
  for (let start = 0; ; start += page) {
    // Newest first: stop at the first page that reaches past the window.
    const jobs = await queue.getJobs(['completed'], start, start + page - 1, false);
    let older = false;
    for (const job of jobs) {
      if ((job.finishedOn ?? 0) < since) {
        older = true;
        continue;
      }
      if (job.name !== 'consolidate') continue;
      const data = job.data as { tenant?: string; user_id?: string };
      if (data.tenant && data.user_id)
        seen.set(`${data.tenant}\u001f${data.user_id}`, { tenant: data.tenant, userId: data.user_id });
    }
    if (jobs.length < page || older) break;
  }
  return [...seen.values()];
}
