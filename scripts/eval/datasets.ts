/**
 * Loads long-term conversation benchmarks into one shape for the eval scripts.
 *
 * Two on-disk layouts are read:
 * - REALTALK (Lee et al., 2025): one JSON object per file, `name: {speaker_1, speaker_2}`,
 *   `session_N: [{clean_text, speaker, date_time "29.12.2023, 22:42:04", dia_id}]`, `qa: [...]`.
 * - LoCoMo (Maharana et al., 2024): a JSON array of samples `{sample_id, conversation: {speaker_a,
 *   speaker_b, session_N: [{speaker, dia_id, text}], session_N_date_time: "1:56 pm on 8 May, 2023"}, qa}`.
 *
 * Dates carry no time zone in either dataset; they are read as UTC so results are reproducible
 * on any machine. A LoCoMo turn has no timestamp of its own and takes its session's date.
 * Evidence ids are kept verbatim, even when the conversation lacks that turn (REALTALK has a few
 * such gaps); `unreachableEvidence` counts them so a report can state its recall ceiling.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';

export interface DatasetTurn {
  /** "D<session>:<turn>", the id evidence refers to. */
  dia_id: string;
  speaker: string;
  text: string;
  /** ISO-8601 UTC. */
  occurred_at: string;
  /** Caption of a shared image, when the dataset provides one. */
  image_caption?: string;
}

export interface DatasetSession {
  /** N of `session_N`. */
  index: number;
  /** ISO-8601 UTC start of the session (its date, or its first turn's time). */
  occurred_at: string;
  turns: DatasetTurn[];
}

export interface DatasetQuestion {
  question: string;
  answer: string;
  evidence: string[];
  category: number;
}

export interface DatasetConversation {
  /** Stable id: the sample id (LoCoMo) or the file name without extension (REALTALK). */
  id: string;
  speakers: string[];
  sessions: DatasetSession[];
  questions: DatasetQuestion[];
}

export type DatasetLayout = 'realtalk' | 'locomo';

export interface Dataset {
  name: string;
  layout: DatasetLayout;
  conversations: DatasetConversation[];
}

const realtalkTurn = z.looseObject({
  clean_text: z.string(),
  speaker: z.string(),
  date_time: z.string(),
  dia_id: z.string(),
  blip_caption: z.string().optional(),
});

const locomoTurn = z.looseObject({
  text: z.string(),
  speaker: z.string(),
  dia_id: z.string(),
  blip_caption: z.string().optional(),
});

const question = z.looseObject({
  question: z.string(),
  // LoCoMo stores some answers as numbers and its adversarial questions (category 5) carry
  // `adversarial_answer` instead of `answer`.
  answer: z.union([z.string(), z.number()]).optional(),
  adversarial_answer: z.string().optional(),
  evidence: z.array(z.string()).default([]),
  category: z.coerce.number().int(),
});

const realtalkConversation = z.looseObject({
  name: z.looseObject({ speaker_1: z.string(), speaker_2: z.string() }),
  qa: z.array(question),
});

const locomoSample = z.looseObject({
  sample_id: z.union([z.string(), z.number()]).optional(),
  conversation: z.looseObject({ speaker_a: z.string(), speaker_b: z.string() }),
  qa: z.array(question),
});

const SESSION_KEY = /^session_(\d+)$/;

/** Reads a dataset from a directory of JSON files or from one JSON file, detecting the layout. */
export async function loadDataset(path: string): Promise<Dataset> {
  const files = (await stat(path)).isDirectory()
    ? (await readdir(path))
        .filter((f) => f.endsWith('.json'))
        .sort(byNaturalOrder)
        .map((f) => join(path, f))
    : [path];
  if (files.length === 0) throw new Error(`no .json files in ${path}`);

  const conversations: DatasetConversation[] = [];
  const layouts = new Set<DatasetLayout>();
  for (const file of files) {
    const json: unknown = JSON.parse(await readFile(file, 'utf8'));
    const samples = Array.isArray(json) ? json : [json];
    samples.forEach((sample, i) => {
      const fallbackId = samples.length === 1 ? basename(file, '.json') : `${basename(file, '.json')}#${i}`;
      const layout = detectLayout(sample, file);
      layouts.add(layout);
      conversations.push(
        layout === 'locomo' ? parseLocomo(sample, fallbackId, file) : parseRealtalk(sample, fallbackId, file),
      );
    });
  }
  return {
    name: basename(path).replace(/\.json$/, ''),
    layout: layouts.size === 1 ? [...layouts][0]! : 'realtalk',
    conversations,
  };
}

export function detectLayout(sample: unknown, where = 'input'): DatasetLayout {
  if (sample && typeof sample === 'object') {
    if ('conversation' in sample) return 'locomo';
    if ('name' in sample && 'qa' in sample) return 'realtalk';
  }
  throw new Error(`${where}: neither the REALTALK layout (name, session_N, qa) nor LoCoMo (conversation, qa)`);
}

export function parseRealtalk(sample: unknown, id: string, where = id): DatasetConversation {
  const parsed = parseWith(realtalkConversation, sample, where);
  const record = parsed as Record<string, unknown>;
  const sessions: DatasetSession[] = [];
  for (const [key, value] of Object.entries(record)) {
    const match = SESSION_KEY.exec(key);
    if (!match) continue;
    const index = Number(match[1]);
    const turns = parseWith(z.array(realtalkTurn), value, `${where} ${key}`).map(
      (t): DatasetTurn => ({
        dia_id: t.dia_id,
        speaker: t.speaker,
        text: t.clean_text,
        occurred_at: parseDayFirstDateTime(t.date_time, `${where} ${t.dia_id}`),
        ...(t.blip_caption ? { image_caption: t.blip_caption } : {}),
      }),
    );
    const sessionDate = record[`${key}_date_time`];
    const occurred_at =
      typeof sessionDate === 'string'
        ? parseDayFirstDateTime(sessionDate, `${where} ${key}_date_time`)
        : (turns[0]?.occurred_at ?? new Date(0).toISOString());
    sessions.push({ index, occurred_at, turns });
  }
  return {
    id,
    speakers: [parsed.name.speaker_1, parsed.name.speaker_2],
    sessions: sessions.sort((a, b) => a.index - b.index),
    questions: parsed.qa.map(toQuestion),
  };
}

export function parseLocomo(sample: unknown, fallbackId: string, where = fallbackId): DatasetConversation {
  const parsed = parseWith(locomoSample, sample, where);
  const conversation = parsed.conversation as Record<string, unknown>;
  const sessions: DatasetSession[] = [];
  for (const [key, value] of Object.entries(conversation)) {
    const match = SESSION_KEY.exec(key);
    if (!match) continue;
    const dateText = conversation[`${key}_date_time`];
    if (typeof dateText !== 'string') throw new Error(`${where}: ${key} has no ${key}_date_time`);
    const occurred_at = parseLocomoDateTime(dateText, `${where} ${key}_date_time`);
    const turns = parseWith(z.array(locomoTurn), value, `${where} ${key}`).map(
      (t): DatasetTurn => ({
        dia_id: t.dia_id,
        speaker: t.speaker,
        text: t.text,
        occurred_at,
        ...(t.blip_caption ? { image_caption: t.blip_caption } : {}),
      }),
    );
    sessions.push({ index: Number(match[1]), occurred_at, turns });
  }
  return {
    id: parsed.sample_id === undefined ? fallbackId : String(parsed.sample_id),
    speakers: [parsed.conversation.speaker_a, parsed.conversation.speaker_b],
    sessions: sessions.sort((a, b) => a.index - b.index),
    questions: parsed.qa.map(toQuestion),
  };
}

/** "29.12.2023, 22:42:04" (REALTALK) → ISO UTC. */
export function parseDayFirstDateTime(text: string, where = 'date'): string {
  const m = /^(\d{1,2})\.(\d{1,2})\.(\d{4}),?\s+(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (!m) throw new Error(`${where}: unreadable date "${text}" (expected "DD.MM.YYYY, HH:MM:SS")`);
  const [, d, mo, y, h, mi, s] = m;
  return utc(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s ?? 0), text, where);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** "1:56 pm on 8 May, 2023" (LoCoMo) → ISO UTC. */
export function parseLocomoDateTime(text: string, where = 'date'): string {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i.exec(text.trim());
  const month = m ? MONTHS.indexOf((m[5] ?? '').slice(0, 3).toLowerCase()) + 1 : 0;
  if (!m || month === 0) throw new Error(`${where}: unreadable date "${text}" (expected "1:56 pm on 8 May, 2023")`);
  const hour12 = Number(m[1]) % 12;
  const hour = (m[3] ?? '').toLowerCase() === 'pm' ? hour12 + 12 : hour12;
  return utc(Number(m[6]), month, Number(m[4]), hour, Number(m[2]), 0, text, where);
}

/** All turns of a conversation in session order, the unit retrieval is scored on. */
export function conversationTurns(conversation: DatasetConversation): DatasetTurn[] {
  return conversation.sessions.flatMap((s) => s.turns);
}

/** Evidence ids a question cites that the conversation does not contain (unretrievable). */
export function unreachableEvidence(conversation: DatasetConversation): number {
  const ids = new Set(conversationTurns(conversation).map((t) => t.dia_id));
  let missing = 0;
  for (const q of conversation.questions) for (const e of q.evidence) if (!ids.has(e)) missing++;
  return missing;
}

function toQuestion(q: z.output<typeof question>): DatasetQuestion {
  return {
    question: q.question,
    answer: String(q.answer ?? q.adversarial_answer ?? ''),
    evidence: q.evidence.flatMap(splitEvidence),
    category: q.category,
  };
}

/** LoCoMo occasionally packs several ids into one string ("D8:6; D9:17"). */
function splitEvidence(entry: string): string[] {
  return entry
    .split(/[;,\s]+/)
    .map((e) => e.trim())
    .filter(Boolean);
}

function utc(y: number, mo: number, d: number, h: number, mi: number, s: number, text: string, where: string): string {
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  if (Number.isNaN(date.getTime()) || date.getUTCDate() !== d) throw new Error(`${where}: invalid date "${text}"`);
  return date.toISOString();
}

function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).slice(0, 5);
    throw new Error(`${where}: not a valid conversation dataset:\n  ${problems.join('\n  ')}`);
  }
  return result.data;
}

function byNaturalOrder(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
