import {
  forgetFilterMissing,
  type MemoryInput,
  type MemoryRecord,
  type SearchResponse,
  type WriteResult,
} from '@hindsight/memory-model';
import { type CommandContext, EXIT, parseInteger, UsageError } from '../context.ts';
import { FILTER_OPTIONS, type FilterValues, filterQuery } from './filters.ts';

export const STORE_OPTIONS = {
  user: { type: 'string', short: 'u' },
  type: { type: 'string', short: 't' },
  category: { type: 'string' },
  tag: { type: 'string', multiple: true },
  metadata: { type: 'string' },
  'occurred-at': { type: 'string' },
  session: { type: 'string' },
  confidence: { type: 'string' },
} as const;

export async function storeCommand(
  ctx: CommandContext,
  positionals: string[],
  values: {
    user?: string;
    type?: string;
    category?: string;
    tag?: string[];
    metadata?: string;
    'occurred-at'?: string;
    session?: string;
    confidence?: string;
  },
): Promise<number> {
  const content = positionals.join(' ').trim();
  if (!content) throw new UsageError('store needs the memory text: hindsight store "likes concise answers" --user u1');
  const input: Record<string, unknown> = { content };
  if (values.user) input.user_id = values.user;
  if (values.type) input.memory_type = values.type;
  if (values.category) input.category = values.category;
  if (values.tag?.length) input.tags = values.tag;
  if (values.session) input.session_id = values.session;
  if (values['occurred-at']) input.occurred_at = values['occurred-at'];
  if (values.metadata) input.metadata = parseJsonObject(values.metadata, '--metadata');
  if (values.confidence) input.confidence = parseNumber(values.confidence, '--confidence');
  const result: WriteResult = await ctx.client().store(input as MemoryInput);
  if (ctx.json) ctx.outJson(result);
  else
    ctx.out(
      `${result.status} ${result.id} (${result.layer})${result.superseded_ids?.length ? `, supersedes ${result.superseded_ids.join(', ')}` : ''}`,
    );
  return EXIT.ok;
}

export const SEARCH_OPTIONS = {
  user: { type: 'string', short: 'u' },
  'top-k': { type: 'string', short: 'k' },
  type: { type: 'string', short: 't', multiple: true },
  tag: { type: 'string', multiple: true },
  'time-range': { type: 'string' },
  budget: { type: 'string' },
  session: { type: 'string' },
} as const;

export async function searchCommand(
  ctx: CommandContext,
  positionals: string[],
  values: {
    user?: string;
    'top-k'?: string;
    type?: string[];
    tag?: string[];
    'time-range'?: string;
    budget?: string;
    session?: string;
  },
): Promise<number> {
  const query = positionals.join(' ').trim();
  if (!query) throw new UsageError('search needs a query: hindsight search "what does the user eat?" --user u1');
  const request: Record<string, unknown> = { query };
  if (values.user) request.user_id = values.user;
  if (values['top-k']) request.top_k = parseInteger(values['top-k'], '--top-k');
  if (values.type?.length) request.memory_types = values.type;
  if (values.tag?.length) request.tags = values.tag;
  if (values['time-range']) request.time_range = values['time-range'];
  if (values.budget) request.token_budget = parseInteger(values.budget, '--budget');
  if (values.session) request.session_id = values.session;
  const answer: SearchResponse = await ctx.client().search(request as { query: string });
  if (ctx.json) {
    ctx.outJson(answer);
    return EXIT.ok;
  }
  if (answer.results.length === 0) ctx.out('no memories found');
  answer.results.forEach((hit, i) => {
    ctx.out(
      `${String(i + 1).padStart(2)}. [${hit.score.toFixed(3)}] ${hit.occurred_at.slice(0, 10)} ${hit.category}: ${oneLine(hit.content)}  (${hit.id})`,
    );
  });
  const notes = [answer.truncated ? 'cut to the token budget' : '', answer.timed_out ? 'deadline reached' : ''].filter(
    Boolean,
  );
  ctx.note(`${answer.results.length} results in ${answer.took_ms} ms${notes.length ? ` (${notes.join(', ')})` : ''}`);
  return EXIT.ok;
}

export const FORGET_OPTIONS = {
  id: { type: 'string' },
  user: { type: 'string', short: 'u' },
  session: { type: 'string' },
  tag: { type: 'string', multiple: true },
  type: { type: 'string', short: 't', multiple: true },
  before: { type: 'string' },
  'dry-run': { type: 'boolean' },
} as const;

export async function forgetCommand(
  ctx: CommandContext,
  values: {
    id?: string;
    user?: string;
    session?: string;
    tag?: string[];
    type?: string[];
    before?: string;
    'dry-run'?: boolean;
  },
): Promise<number> {
  const request: Record<string, unknown> = {};
  if (values.id) request.memory_id = values.id;
  if (values.user) request.user_id = values.user;
  if (values.session) request.session_id = values.session;
  if (values.tag?.length) request.tags = values.tag;
  if (values.type?.length) request.memory_types = values.type;
  if (values.before) request.before = values.before;
  const missing = forgetFilterMissing(request);
  if (missing) throw new UsageError(`${missing} (--id, --user, --session, --tag, --type, --before)`);
  request.dry_run = values['dry-run'] === true;
  const answer = await ctx.client().forget(request);
  if (ctx.json) ctx.outJson(answer);
  else ctx.out(answer.dry_run ? `would forget ${answer.count} memories (dry run)` : `forgot ${answer.count} memories`);
  // Forgetting one named memory that does not exist is worth a distinct status to a script.
  return values.id && answer.count === 0 ? EXIT.notFound : EXIT.ok;
}

export const LIST_OPTIONS = {
  ...FILTER_OPTIONS,
  limit: { type: 'string', short: 'n' },
  all: { type: 'boolean' },
} as const;

export async function listCommand(
  ctx: CommandContext,
  values: FilterValues & { limit?: string; all?: boolean },
): Promise<number> {
  const limit = values.limit ? parseInteger(values.limit, '--limit') : 50;
  const query = { ...filterQuery(values), limit: values.all ? 1000 : Math.min(limit, 1000) };
  const client = ctx.client();
  const items: MemoryRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.list({ ...query, cursor });
    items.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined && (values.all || items.length < limit));
  const shown = values.all ? items : items.slice(0, limit);
  if (ctx.json) {
    ctx.outJson({ items: shown, next_cursor: values.all ? null : (cursor ?? null) });
    return EXIT.ok;
  }
  for (const m of shown) {
    ctx.out(
      `${m.id}  ${m.occurred_at.slice(0, 10)}  ${m.layer}/${m.category}  ${m.status === 'active' ? '' : `[${m.status}] `}${oneLine(m.content)}`,
    );
  }
  ctx.note(`${shown.length} memories${!values.all && cursor ? ' (more: --all or --limit)' : ''}`);
  return EXIT.ok;
}

function oneLine(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function parseNumber(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isFinite(value)) throw new UsageError(`${flag} takes a number, got "${text}"`);
  return value;
}

function parseJsonObject(text: string, flag: string): Record<string, unknown> {
  const problem = new UsageError(`${flag} takes a JSON object, e.g. '{"source":"cli"}'`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw problem;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw problem;
  return value as Record<string, unknown>;
}
