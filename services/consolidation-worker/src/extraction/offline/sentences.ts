/** Sentences of a user turn, and runs of them in one language. */

const HAN = /\p{Script=Han}/u;

/**
 * A turn as runs of sentences in one language, each for its own reader: "我住在北京。Please always
 * answer me in English." holds a Chinese fact and an English instruction. A Chinese sentence with a
 * Latin name in it ("我用iPhone") stays Chinese; a turn in one language is one run.
 */
export function byLanguage(text: string): Array<{ zh: boolean; text: string }> {
  if (!HAN.test(text) || !/[A-Za-z]{2,}[^.!?。！？]*\s[A-Za-z]{2,}/u.test(text)) return [{ zh: HAN.test(text), text }];
  const runs: Array<{ zh: boolean; text: string }> = [];
  for (const sentence of sentencesOf(text)) {
    const zh = HAN.test(sentence);
    const last = runs.at(-1);
    if (last && last.zh === zh) last.text = `${last.text}${zh ? '' : ' '}${sentence}`;
    else runs.push({ zh, text: sentence });
  }
  return runs;
}

/** Titles and abbreviations a full stop does not end a sentence after ("Dr. Weiss", "e.g. rice"). */
const ABBREVIATION = /(?:^|[\s(])(?:dr|mr|mrs|ms|prof|st|mt|vs|approx|etc|e\.g|i\.e|no|fig)\.$/i;

/** The sentences of a turn, a title's full stop ("Dr. Weiss") not ending one. */
export function sentencesOf(text: string): string[] {
  const sentences: string[] = [];
  for (const part of text.trim().split(/(?<=[.!?。！？])\s*/u)) {
    const previous = sentences.at(-1);
    if (previous !== undefined && ABBREVIATION.test(previous)) sentences[sentences.length - 1] = `${previous} ${part}`;
    else sentences.push(part);
  }
  return sentences.map((s) => s.trim()).filter(Boolean);
}
