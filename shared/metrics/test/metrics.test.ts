import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetricsRegistry, httpMetrics, parsePrometheusText } from '../src/index.ts';

describe('httpMetrics', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('serves Prometheus text with request latency by route template and status', async () => {
    const registry = createMetricsRegistry({ service: 'metrics-test' });
    app = Fastify();
    await app.register(httpMetrics, { registry });
    app.get('/items/:id', async (request) => ({ id: (request.params as { id: string }).id }));
    const url = await app.listen({ host: '127.0.0.1', port: 0 });

    for (const id of ['a', 'b', 'c']) expect((await fetch(`${url}/items/${id}`)).status).toBe(200);
    expect((await fetch(`${url}/nowhere`)).status).toBe(404);

    const response = await fetch(`${url}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const samples = parsePrometheusText(await response.text());
    const count = (route: string, status: string) =>
      samples.find(
        (s) =>
          s.name === 'hindsight_http_request_duration_seconds_count' &&
          s.labels.route === route &&
          s.labels.status_code === status &&
          s.labels.service === 'metrics-test',
      )?.value;
    // One series for the template, not one per id.
    expect(count('/items/:id', '200')).toBe(3);
    expect(count('unmatched', '404')).toBe(1);
    expect(samples.some((s) => s.name === 'hindsight_process_resident_memory_bytes')).toBe(true);
  });

  it('keeps two apps in one process apart (no global registry)', async () => {
    const first = createMetricsRegistry({ service: 'one', processMetrics: false });
    const second = createMetricsRegistry({ service: 'two', processMetrics: false });
    const a = Fastify();
    const b = Fastify();
    await a.register(httpMetrics, { registry: first });
    await b.register(httpMetrics, { registry: second });
    a.get('/ping', async () => 'pong');
    await a.inject({ url: '/ping' });
    const seen = parsePrometheusText(await second.metrics()).filter((s) => s.labels.route === '/ping');
    expect(seen).toEqual([]);
    await a.close();
    await b.close();
  });
});

describe('parsePrometheusText', () => {
  it('reads labels with escapes and special values, and refuses garbage', () => {
    const samples = parsePrometheusText(
      '# HELP x help\n# TYPE x counter\nx{a="1",b="say \\"hi\\""} 3\nbucket{le="+Inf"} +Inf\nplain 0.5 1700000000\n',
    );
    expect(samples).toEqual([
      { name: 'x', labels: { a: '1', b: 'say "hi"' }, value: 3 },
      { name: 'bucket', labels: { le: '+Inf' }, value: Number.POSITIVE_INFINITY },
      { name: 'plain', labels: {}, value: 0.5 },
    ]);
    expect(() => parsePrometheusText('this is not a metric line\n')).toThrow(/line 1/);
  });

  it('reads NaN as prom-client writes it ("Nan", before a gauge has a sample)', () => {
    const [lag] = parsePrometheusText('eventloop_lag_mean_seconds{service="x"} Nan\n');
    expect(lag?.value).toBeNaN();
    expect(() => parsePrometheusText('broken 1.2.3\n')).toThrow(/not a sample value/);
  });
});
