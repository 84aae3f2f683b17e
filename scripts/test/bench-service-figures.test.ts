import { describe, expect, it } from 'vitest';
import { readCpuMs } from '../bench/service-figures.ts';

describe('bench service figures', () => {
  it("reads a process's CPU time as the kernel counts it (what the bench divides per request)", async () => {
    const before = await readCpuMs(process.pid);
    const usageBefore = process.cpuUsage();
    const until = performance.now() + 300;
    let spins = 0;
    while (performance.now() < until) spins++;
    const used = await readCpuMs(process.pid);
    const usage = process.cpuUsage(usageBefore);
    expect(spins).toBeGreaterThan(0);
    const counted = used - before;
    const reported = (usage.user + usage.system) / 1000;
    // /proc counts in ticks of 10 ms: within a few ticks of what Node reports for the same span.
    expect(counted).toBeGreaterThanOrEqual(100);
    expect(Math.abs(counted - reported)).toBeLessThanOrEqual(40);
  });
});
