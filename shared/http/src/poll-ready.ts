/**
 * Polls `url` until it answers 200, `hasExited()` says the process behind it is gone, or
 * `timeoutMs` passes; says which. Each poll is bounded, so a half-started process cannot hold one
 * past the deadline for long. The launcher and the test support wait for services with it.
 */
export async function pollReady(
  url: string,
  options: { timeoutMs: number; hasExited: () => boolean; intervalMs?: number },
): Promise<'ready' | 'exited' | 'timeout'> {
  const deadline = Date.now() + options.timeoutMs;
  while (Date.now() < deadline) {
    if (options.hasExited()) return 'exited';
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.body?.cancel();
      if (response.status === 200) return 'ready';
    } catch {
      // Not listening yet: poll again until the deadline.
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
  }
  return options.hasExited() ? 'exited' : 'timeout';
}
