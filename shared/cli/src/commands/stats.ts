import type { DebugMemory } from '@hindsight/memory-model';
import { type CommandContext, EXIT } from '../context.ts';

export const STATS_OPTIONS = { tenant: { type: 'string' } } as const;

/** `GET /debug/memory` (needs the admin key): counts per layer and recent activity. */
export async function statsCommand(ctx: CommandContext, values: { tenant?: string }): Promise<number> {
  const suffix = values.tenant ? `?tenant=${encodeURIComponent(values.tenant)}` : '';
  const stats = await ctx.client().request<DebugMemory>('GET', `/debug/memory${suffix}`);
  if (ctx.json) {
    ctx.outJson(stats);
    return EXIT.ok;
  }
  ctx.out(`memories: ${stats.total}${values.tenant ? ` (tenant ${values.tenant})` : ' (all tenants)'}`);
  for (const [layer, byStatus] of Object.entries(stats.layers)) {
    ctx.out(
      `  ${layer.padEnd(9)} ${Object.entries(byStatus)
        .map(([status, n]) => `${status} ${n}`)
        .join(', ')}`,
    );
  }
  ctx.out(`last write: ${stats.last_write_at ?? 'none since start'}`);
  const { searches, with_results, hit_rate } = stats.retrieval;
  ctx.out(
    `searches: ${searches}, with results: ${with_results}${hit_rate === null ? '' : ` (hit rate ${(hit_rate * 100).toFixed(1)}%)`}`,
  );
  if (stats.queue)
    ctx.out(
      `queue: ${Object.entries(stats.queue)
        .map(([state, n]) => `${state} ${n}`)
        .join(', ')}`,
    );
  ctx.out(`(activity counted by this replica since ${stats.since})`);
  return EXIT.ok;
}
