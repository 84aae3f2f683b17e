import { Counter, createMetricsRegistry, Gauge, Histogram, type Registry } from '@hindsight/metrics';

export interface WorkerMetrics {
  registry: Registry;
  jobDuration: Histogram<'job' | 'outcome'>;
  items: Counter<'status'>;
  llmTokens: Counter;
  queueDepth: Gauge<'state'>;
}

/** The worker's series; queue depth is read from Redis at scrape time. */
export function createWorkerMetrics(
  queueCounts: () => Promise<Record<string, number>>,
  processMetrics = true,
): WorkerMetrics {
  const registry = createMetricsRegistry({ service: 'consolidation-worker', processMetrics });
  return {
    registry,
    jobDuration: new Histogram({
      name: 'hindsight_job_duration_seconds',
      help: 'Duration of hindsight jobs by name and outcome',
      labelNames: ['job', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
    items: new Counter({
      name: 'hindsight_consolidation_items_total',
      help: 'Items written by consolidation, by write outcome (created, merged, superseded, duplicate, quarantined, rejected)',
      labelNames: ['status'],
      registers: [registry],
    }),
    llmTokens: new Counter({
      name: 'hindsight_extraction_llm_tokens_total',
      help: 'Tokens spent by the LLM extractor',
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'hindsight_queue_jobs',
      help: 'Jobs in the hindsight queue by state',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        for (const [state, count] of Object.entries(await queueCounts())) this.set({ state }, count);
      },
    }),
  };
}
