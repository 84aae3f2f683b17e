import { describe, expect, it } from 'vitest';
import { readCpuMs } from '../bench/service-figures.ts';

const cpuMsSince = (since: NodeJS.CpuUsage) => {
  const usage = process.cpuUsage(since);
  return (usage.user + usage.system) / 1000;
};

describe('bench service figures', () => {
  it("reads a process's CPU time as the kernel counts it (what the bench divides per request)", async () => {
    const before = await readCpuMs(process.pid);
    const usageBefore = process.cpuUsage();
    // Spin until the process has used 300 ms of CPU, not 300 ms of wall time: on a loaded machine
    // a wall-clock spin may be given a fraction of a core.
    let spins = 0;
    while (cpuMsSince(usageBefore) < 300) spins++;
    const used = await readCpuMs(process.pid);
    const reported = cpuMsSince(usageBefore);
    expect(spins).toBeGreaterThan(0);
    const counted = used - before;
    // /proc counts in ticks of 10 ms: within a few ticks of what Node reports for the same span.
    expect(counted).toBeGreaterThanOrEqual(100);
    expect(Math.abs(counted - reported)).toBeLessThanOrEqual(40);
  });
});
