import { collectDefaultMetrics, Registry } from 'prom-client';

export interface MetricsRegistryOptions {
  /** Added as a `service` label to every series, so one Prometheus can tell the services apart. */
  service: string;
  /** Process metrics (CPU, RSS, event-loop lag, GC); on unless a test wants a quiet registry. */
  processMetrics?: boolean;
}

/**
 * One registry per process (or per app instance in tests), never prom-client's global one:
 * two apps built in one test process must not share or double-register series.
 */
export function createMetricsRegistry(options: MetricsRegistryOptions): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: options.service });
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'hindsight_' });
  return registry;
}
