import { describe, expect, it } from 'vitest';
import { CircuitBreaker, CircuitOpenError, type Embedder, GuardedEmbedder, withRetries } from '../src/index.ts';

describe('CircuitBreaker', () => {
  it('opens after the threshold, lets one trial through after the cool-down, and closes on success', async () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 2, cooldownMs: 1_000, now: () => now });
    const fail = () => Promise.reject(new Error('down'));
    await expect(breaker.run(fail)).rejects.toThrow('down');
    expect(breaker.state).toBe('closed');
    await expect(breaker.run(fail)).rejects.toThrow('down');
    expect(breaker.state).toBe('open');

    let called = false;
    await expect(breaker.run(async () => (called = true))).rejects.toBeInstanceOf(CircuitOpenError);
    expect(called).toBe(false);

    now = 1_000;
    expect(breaker.state).toBe('half-open');
    await expect(breaker.run(fail)).rejects.toThrow('down');
    expect(breaker.state).toBe('open');

    now = 2_000;
    await expect(breaker.run(async () => 'ok')).resolves.toBe('ok');
    expect(breaker.state).toBe('closed');
  });
});

describe('withRetries', () => {
  it('retries retryable errors up to the limit and honours a requested delay', async () => {
    const sleeps: number[] = [];
    let attempts = 0;
    const result = await withRetries(
      async () => {
        attempts++;
        if (attempts < 3) throw new Error('busy');
        return 'done';
      },
      {
        retries: 5,
        baseDelayMs: 10,
        maxDelayMs: 100,
        isRetryable: () => true,
        requestedDelayMs: () => 50,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      },
    );
    expect(result).toBe('done');
    expect(sleeps).toEqual([50, 50]);
  });

  it('rethrows a non-retryable error at once', async () => {
    let attempts = 0;
    await expect(
      withRetries(
        async () => {
          attempts++;
          throw new Error('bad request');
        },
        { retries: 5, baseDelayMs: 1, maxDelayMs: 1, isRetryable: () => false },
      ),
    ).rejects.toThrow('bad request');
    expect(attempts).toBe(1);
  });
});

describe('GuardedEmbedder', () => {
  it('passes forget through to the caches below, even while its circuit is open', async () => {
    const forgotten: string[][] = [];
    const inner: Embedder = {
      model: 'm',
      dimension: 2,
      embed: () => Promise.reject(new Error('down')),
      check: () => Promise.resolve(),
      forget: async (texts) => {
        forgotten.push([...texts]);
        return texts.length;
      },
    };
    const guarded = new GuardedEmbedder(inner, { deadlineMs: 100, cooldownMs: 60_000 });
    await expect(guarded.embed(['a'])).rejects.toThrow('down');
    await expect(guarded.forget(['a', 'b'])).resolves.toBe(2);
    expect(forgotten).toEqual([['a', 'b']]);
  });
});
