/**
 * The sessions fixture: one YAML file per user — one or more conversations with an assistant, and
 * the facts a person would have noted from them (gold facts: a question and the words its answer
 * must contain). Files under a `held-out/` folder are the held-out split: never tune on them.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';

const Turn = z.union([z.object({ u: z.string().min(1) }).strict(), z.object({ a: z.string().min(1) }).strict()]);

const Session = z
  .object({
    /** Conversation time of the first turn; later turns follow a minute or so apart. */
    start: z.iso.datetime({ offset: true }),
    turns: z.array(Turn).min(2),
  })
  .strict();

/** Words an answer must contain, all of them; `a|b` accepts either spelling. */
const Expected = z.array(z.string().min(1)).min(1);

const GoldFact = z.object({ q: z.string().min(2), expect: Expected }).strict();

/** A decision the user took back: no active semantic memory may still hold the `stale` words. */
const Reversal = z.object({ what: z.string().min(1), stale: Expected }).strict();

export const SessionFile = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/),
    lang: z.enum(['en', 'zh']),
    domain: z.string().min(2),
    sessions: z.array(Session).min(1),
    gold: z.array(GoldFact).min(1),
    reversed: z.array(Reversal).default([]),
  })
  .strict();
export type SessionFile = z.infer<typeof SessionFile>;

export type Split = 'tune' | 'held-out';

export interface FixtureUser extends SessionFile {
  split: Split;
  file: string;
}

/** Every `*.yaml` under `dir`, validated; the split is `held-out` for files under a `held-out/` folder. */
export async function loadSessionsFixture(dir: string): Promise<FixtureUser[]> {
  const files = (await readdir(dir, { recursive: true }))
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort();
  if (files.length === 0) throw new Error(`no .yaml session files under ${dir}`);
  const users: FixtureUser[] = [];
  const ids = new Set<string>();
  for (const file of files) {
    const path = join(dir, file);
    const parsed = SessionFile.safeParse(parse(await readFile(path, 'utf8')));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`${path}: ${issue?.path.join('.') || '(file)'}: ${issue?.message ?? 'invalid'}`);
    }
    if (ids.has(parsed.data.id)) throw new Error(`${path}: id ${parsed.data.id} is used twice`);
    ids.add(parsed.data.id);
    const split: Split = relative(dir, path).split(sep).includes('held-out') ? 'held-out' : 'tune';
    users.push({ ...parsed.data, split, file: path });
  }
  return users;
}

/** The session's turns with roles and conversation times (user turns a minute apart, replies 20 s after). */
export function timedTurns(
  session: z.infer<typeof Session>,
): Array<{ role: 'user' | 'assistant'; content: string; timestamp: string }> {
  let at = Date.parse(session.start);
  return session.turns.map((turn, index) => {
    if (index > 0) at += 'u' in turn ? 60_000 : 20_000;
    const role = 'u' in turn ? ('user' as const) : ('assistant' as const);
    return { role, content: 'u' in turn ? turn.u : turn.a, timestamp: new Date(at).toISOString() };
  });
}
