import { keywordTokens } from '@hindsight/text';

/**
 * Decides whether a newer statement contradicts an older one about the same
 * subject (then the older is superseded) or is compatible with it (then it may be
 * merged). Implementations: rule-based (below, offline) and LLM-based.
 */
export interface ContradictionJudge {
  readonly name: string;
  contradicts(older: string, newer: string): Promise<boolean>;
}

const NEGATION_EN =
  /\b(not|no|never|none|nor|without|hate[sd]?|dislikes?|disliked|quit|quits|quitted|stopped|stops|gave up|give up|given up|avoids?|can't stand)\b|n't\b/gi;
const CHANGE_EN =
  /\b(no longer|any ?more|switched|switching|changed|moved|instead|now|actually|used to|these days|from now on|not anymore|updated|became|become)\b/i;
const NEGATION_ZH = /不|没|別|别|戒|讨厌|拒绝|停止/g;
const CHANGE_ZH = /不再|改成|改为|换成|换了|现在|其实|已经|以后|搬到|改用/;
const KEY_VALUE = /^(.*?)\s*(?:\b(?:is|are|was|were|equals)\b|=|:|是|为)\s*(.+)$/i;

/** Cue words carry polarity, not subject; leave them out when comparing subjects. */
const CUE_TERMS = new Set(
  keywordTokens(
    'not no never none nor without hate hates hated dislike dislikes disliked quit quits stopped stop gave give given up avoid avoids longer anymore any more switched switching changed moved instead now actually used these days from updated became become like likes liked love loves loved enjoy enjoys prefer prefers really still',
  ),
);
const ZH_CUE_CHARS = /[不没別别戒讨厌拒绝停止再改成为换了现在其实已经以后搬到喜欢爱很]/g;

/** Keys like "the user is …" name the owner, not an attribute: no key/value rule for them. */
const GENERIC_SUBJECTS = new Set(keywordTokens('user i he she they we it person customer 用户 我 他 她'));

function subjectTerms(text: string): Set<string> {
  return new Set(keywordTokens(text.replace(ZH_CUE_CHARS, ' ')).filter((t) => !CUE_TERMS.has(t)));
}

/** Negative statements ("doesn't", "quit", "不再", "戒了"); stacked cues in one sentence still mean one negation. */
function isNegative(text: string): boolean {
  return (text.match(NEGATION_EN)?.length ?? 0) + (text.match(NEGATION_ZH)?.length ?? 0) > 0;
}

function overlap(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / Math.min(a.size, b.size);
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  return a.size === b.size && [...a].every((t) => b.has(t));
}

/**
 * Rules, English and Chinese: opposite polarity about the same subject ("likes
 * coffee" / "has quit coffee", "喜欢咖啡" / "不再喝咖啡"), a change cue with a
 * different value ("switched to tea"), or the same key with another value
 * ("timezone is UTC+8" / "timezone is UTC+1").
 */
export class RuleContradictionJudge implements ContradictionJudge {
  readonly name = 'rules';

  async contradicts(older: string, newer: string): Promise<boolean> {
    const olderSubject = subjectTerms(older);
    const newerSubject = subjectTerms(newer);
    const related = overlap(olderSubject, newerSubject);

    const olderKv = KEY_VALUE.exec(older.trim());
    const newerKv = KEY_VALUE.exec(newer.trim());
    if (olderKv && newerKv) {
      const olderKey = subjectTerms(olderKv[1] ?? '');
      const newerKey = subjectTerms(newerKv[1] ?? '');
      const specificKey = [...olderKey].some((t) => !GENERIC_SUBJECTS.has(t));
      if (specificKey && sameSet(olderKey, newerKey)) {
        const olderValue = subjectTerms(olderKv[2] ?? '');
        const newerValue = subjectTerms(newerKv[2] ?? '');
        // A value that only adds detail ("peanuts" → "peanuts and shellfish") refines; it does not contradict.
        return ![...olderValue].every((t) => newerValue.has(t));
      }
    }
    if (related < 0.5) return false;
    const polarityFlipped = isNegative(older) !== isNegative(newer);
    if (polarityFlipped) return true;
    const changeCue = CHANGE_EN.test(newer) || CHANGE_ZH.test(newer);
    return changeCue && !sameSet(olderSubject, newerSubject);
  }
}
