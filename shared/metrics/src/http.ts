import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Histogram, type Registry } from 'prom-client';

export interface HttpMetricsOptions {
  registry: Registry;
  /** Where the Prometheus text is served; `/metrics` unless told otherwise. */
  path?: string;
  /** Extra route options for the metrics route (e.g. `{access: 'public'}` where a service declares access). */
  routeConfig?: Record<string, unknown>;
}

/** Seconds; covers sub-millisecond loopback answers up to slow batch writes. */
export const HTTP_LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const startedAt = Symbol('hindsight.metrics.startedAt');
type Timed = FastifyRequest & { [startedAt]?: bigint };

/**
 * Request latency by route template and status, plus `GET /metrics` in the Prometheus text format.
 * Wrapped with fastify-plugin so its hooks see every route of the instance it is registered on.
 */
export const httpMetrics: FastifyPluginAsync<HttpMetricsOptions> = fp(
  async (app: FastifyInstance, options: HttpMetricsOptions) => {
    const { registry } = options;
    const path = options.path ?? '/metrics';
    const latency = new Histogram({
      name: 'hindsight_http_request_duration_seconds',
      help: 'HTTP request latency by method, route template and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: HTTP_LATENCY_BUCKETS,
      registers: [registry],
    });

    app.addHook('onRequest', async (request) => {
      (request as Timed)[startedAt] = process.hrtime.bigint();
    });
    app.addHook('onResponse', async (request, reply) => {
      const started = (request as Timed)[startedAt];
      if (started === undefined) return;
      // The route template, not the URL: ids in paths would explode the label cardinality.
      const route = request.routeOptions.url ?? 'unmatched';
      if (route === path) return;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      latency.observe({ method: request.method, route, status_code: String(reply.statusCode) }, seconds);
    });

    app.get(path, { config: options.routeConfig ?? {} }, async (_request, reply) => {
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    });
  },
  { name: '@hindsight/metrics', fastify: '5.x' },
);
