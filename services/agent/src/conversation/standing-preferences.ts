import type { SearchHit, Turn } from '@hindsight/memory-model';
import type { Language } from './language.ts';

/** How the user wants to be answered, as they said it once for all later replies. */
export interface StandingPreferences {
  short: boolean;
  /** The language the user asked to be answered in; absent → the message's language. */
  language?: Language;
}

const ABOUT_REPLIES =
  /\b(answers?|replies|reply|respond|responses?|speak|talk|write|keep|assistant|me)\b|回答|回复|说话|跟我说|和我说/i;
const SHORT =
  /\b(short|shorter|brief|briefly|concise|succinct|to the point|one sentence|few words)\b|简短|简洁|短一点|简单点|少说/i;
const LONG = /\b(detailed|longer|in detail|elaborate)\b|详细/i;
const LANGUAGE =
  /\b(?:in|use|using|switch to)\s+(english|chinese|mandarin)\b|(?:用|说|讲)(中文|英文|英语|汉语|普通话|中国话)/i;

function languageNamed(name: string): Language {
  return /english|英文|英语/i.test(name) ? 'en' : 'zh';
}

/** What one text says about replies: `short` and/or `language`, or nothing. */
function readPreference(text: string): Partial<StandingPreferences> {
  if (!ABOUT_REPLIES.test(text)) return {};
  const found: Partial<StandingPreferences> = {};
  if (SHORT.test(text)) found.short = true;
  else if (LONG.test(text)) found.short = false;
  const language = LANGUAGE.exec(text);
  if (language) found.language = languageNamed(language[1] ?? language[2] ?? '');
  return found;
}

/**
 * The standing preferences in force: what the user said in this session (newest first,
 * `current` being the message just received) overrides what memory holds.
 */
export function standingPreferences(
  memories: readonly SearchHit[],
  recent: readonly Turn[],
  current?: string,
): StandingPreferences {
  const said = [
    ...(current ? [current] : []),
    ...[...recent]
      .reverse()
      .filter((t) => t.role === 'user')
      .map((t) => t.content),
    ...memories.filter((m) => m.layer === 'semantic').map((m) => m.content),
  ];
  const result: StandingPreferences = { short: false };
  let shortKnown = false;
  for (const text of said) {
    const found = readPreference(text);
    if (!shortKnown && found.short !== undefined) {
      result.short = found.short;
      shortKnown = true;
    }
    if (result.language === undefined && found.language) result.language = found.language;
  }
  return result;
}
