import { z } from 'zod';
import { HistoryEntry } from './record.ts';
import { MemoryStatus } from './taxonomy.ts';

/** `GET /v1/memories/:id/history`: one page of a memory's versions and those of the memories it superseded. */
export const HistoryView = z.object({
  id: z.string(),
  status: MemoryStatus,
  superseded_by: z.string().nullable(),
  /** The versions of this page's memories (this one first, then those it superseded, back in time), oldest first, each with the reason of its merge or supersede. */
  entries: z.array(HistoryEntry.extend({ memory_id: z.string() })),
  /** The next page: memories superseded further back; null when the chain ends here. */
  next_cursor: z.string().nullable(),
});
export type HistoryView = z.infer<typeof HistoryView>;

/** `POST /v1/import`'s answer. */
export const ImportSummary = z.object({
  /** Non-blank lines read. */
  lines: z.number().int(),
  imported: z.number().int(),
  /** Ids already in the store: what an interrupted import already wrote, or a second run. */
  skipped: z.number().int(),
  /** Active records whose content is already active for the same user and layer under another id. */
  duplicates: z.number().int(),
  /** Of those imported, how many are `quarantined` (the guard held them back, or they were): kept, never returned by search. */
  quarantined: z.number().int(),
});
export type ImportSummary = z.infer<typeof ImportSummary>;
