export { createMetricsRegistry, type MetricsRegistryOptions } from './registry.ts';
export { httpMetrics, type HttpMetricsOptions, HTTP_LATENCY_BUCKETS } from './http.ts';
export { parsePrometheusText, type PrometheusSample } from './parse.ts';
export { Counter, Gauge, Histogram, type Registry } from 'prom-client';
