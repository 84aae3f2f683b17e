import nlp from 'compromise';
import datePlugin, { type DatesMethods } from 'compromise-dates';
import * as jieba from 'jieba-wasm';

/**
 * The NLP libraries the offline extractor stands on: compromise (English sentence and clause
 * splitting, part of speech, contractions, people/places/organisations, verb conjugation, and —
 * with compromise-dates — dates resolved against a reference day) and jieba (Chinese word
 * segmentation with part-of-speech tags). Registered once per process; both are pure and
 * deterministic, so a retried job extracts the same items.
 */
nlp.plugin(datePlugin);

export { nlp };

export type Doc = ReturnType<typeof nlp>;

/** A document with compromise-dates' methods (the plugin's typings do not reach `nlp()`). */
export function withDates(text: string): Doc & DatesMethods {
  return nlp(text) as Doc & DatesMethods;
}

/** One Chinese word and its jieba tag (`n` noun, `v` verb, `ns` place, `nr` person, `t` time, `m` number, …). */
export interface ZhWord {
  word: string;
  tag: string;
}

export function segmentChinese(text: string): ZhWord[] {
  return jieba.tag(text, true).map((t) => ({ word: t.word, tag: t.tag }));
}
