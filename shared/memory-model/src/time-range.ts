import { z } from 'zod';

const RELATIVE = /^(\d{1,5})(h|d|w|m|y)$/;
const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, m: 30 * 86_400_000, y: 365 * 86_400_000 } as const;

/** `"24h"`, `"7d"`, `"30d"` (h/d/w/m/y) or `{from?, to?}` with ISO-8601 times. */
export const TimeRange = z.union([
  z.string().regex(RELATIVE, 'time_range must look like "24h", "7d", "4w", "6m", "1y" or be {from, to}'),
  z
    .object({ from: z.iso.datetime({ offset: true }).optional(), to: z.iso.datetime({ offset: true }).optional() })
    .strict()
    .refine((r) => r.from !== undefined || r.to !== undefined, 'time_range needs from or to')
    .refine((r) => !r.from || !r.to || Date.parse(r.from) <= Date.parse(r.to), 'time_range.from must be before to'),
]);
export type TimeRange = z.infer<typeof TimeRange>;

export interface TimeWindow {
  from?: number;
  to?: number;
}

/** Turns a validated time range into epoch-millisecond bounds relative to `now`. */
export function resolveTimeRange(range: TimeRange | undefined, now: number): TimeWindow {
  if (range === undefined) return {};
  if (typeof range === 'string') {
    const match = RELATIVE.exec(range);
    if (!match) return {};
    const amount = Number(match[1]);
    const unit = match[2] as keyof typeof UNIT_MS;
    return { from: now - amount * UNIT_MS[unit], to: now };
  }
  const window: TimeWindow = {};
  if (range.from) window.from = Date.parse(range.from);
  if (range.to) window.to = Date.parse(range.to);
  return window;
}
