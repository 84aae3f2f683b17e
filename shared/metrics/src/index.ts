export { Counter, Gauge, Histogram, type Registry } from 'prom-client';
export { HTTP_LATENCY_BUCKETS, type HttpMetricsOptions, httpMetrics } from './http.ts';
export { type PrometheusSample, parsePrometheusText } from './parse.ts';
export { createMetricsRegistry, type MetricsRegistryOptions } from './registry.ts';
