import { ExtractedItem, ExtractionError } from './port.ts';

/** More items than this from one session is a runaway extraction, not a session. */
export const MAX_ITEMS_PER_SESSION = 60;

/**
 * Degenerate text: a word or phrase repeated over and over, or almost no distinct
 * words — what a looping model emits.
 */
export function isDegenerate(text: string): boolean {
  const words = text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  if (words.length >= 8 && new Set(words).size / words.length < 0.35) return true;
  if (/(.{2,30}?)\1{4,}/su.test(text)) return true;
  // Chinese has no spaces: judge distinct characters instead.
  const han = text.match(/\p{Script=Han}/gu) ?? [];
  return han.length >= 16 && new Set(han).size / han.length < 0.25;
}

/** A value that speaks as the user ("I am allergic…", "我对…") instead of about them. */
const FIRST_PERSON = /^(?:i|i'm|i've|i'll|my|we|we're|our)\b|^(?:我|我们)/iu;

/**
 * Step 3 of DESIGN §5: schema, length, repetition and count checks on an
 * extractor's output, the same for every extractor. Any failure throws
 * `ExtractionError`: the job fails loudly and nothing is written or deleted. Exact
 * repeats within the session are merged (their provenance joined). With
 * `userTurnIds`, items that cite none of the user's turns (the assistant's own words
 * are not facts about the user) and values written in the first person (not
 * self-contained) are left out.
 */
export function guardExtraction(
  raw: unknown[],
  knownTurnIds: ReadonlySet<string>,
  userTurnIds?: ReadonlySet<string>,
): ExtractedItem[] {
  if (raw.length > MAX_ITEMS_PER_SESSION) {
    throw new ExtractionError(
      `extractor produced ${raw.length} items, more than the ${MAX_ITEMS_PER_SESSION} a session may yield`,
    );
  }
  const byValue = new Map<string, ExtractedItem>();
  raw.forEach((candidate, index) => {
    const parsed = ExtractedItem.safeParse(candidate);
    if (!parsed.success) {
      const problem = parsed.error.issues[0];
      throw new ExtractionError(
        `item ${index} is invalid: ${problem?.path.join('.') || 'item'}: ${problem?.message ?? 'invalid'}`,
      );
    }
    const item = parsed.data;
    if (isDegenerate(item.value) || isDegenerate(item.query)) {
      throw new ExtractionError(
        `item ${index} is degenerate (repetitive text): ${JSON.stringify(item.value.slice(0, 80))}`,
      );
    }
    const unknown = item.turn_ids.filter((id) => !knownTurnIds.has(id));
    if (unknown.length > 0)
      throw new ExtractionError(`item ${index} cites turns that are not in the session: ${unknown.join(', ')}`);
    if (userTurnIds && (!item.turn_ids.some((id) => userTurnIds.has(id)) || FIRST_PERSON.test(item.value))) return;
    const key = `${item.category}\u001f${item.value.toLowerCase()}`;
    const earlier = byValue.get(key);
    if (earlier) {
      earlier.turn_ids = [...new Set([...earlier.turn_ids, ...item.turn_ids])];
      earlier.confidence = Math.max(earlier.confidence, item.confidence);
    } else {
      byValue.set(key, { ...item, turn_ids: [...item.turn_ids] });
    }
  });
  return [...byValue.values()];
}
