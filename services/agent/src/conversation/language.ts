export type Language = 'en' | 'zh';

const HAN = /\p{Script=Han}/u;

/** The language to answer in: Chinese when the message has Han characters, English otherwise. */
export function languageOf(text: string): Language {
  return HAN.test(text) ? 'zh' : 'en';
}
