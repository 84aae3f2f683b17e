import { keywordTokens } from './tokenize.ts';

/**
 * Questions that ask for a kind of answer with a phrase rather than a word, each read as a word
 * that names the kind (the built-in embedder's answer kinds, builtin-v5, and the keyword query).
 * Their words go: "living" in "what does she do for a living?" would otherwise meet
 * "lives" in every fact about where someone lives, and "what does her spouse do?" or "where is she
 * from?" name no kind at all (their other words are stop words).
 */
const QUESTION_PHRASES: readonly (readonly [RegExp, string])[] = [
  [/\b(?:do|does|did|doing)\s+for\s+(?:a\s+)?living\b/giu, ' occupation '],
  [/\bline\s+of\s+(?:work|business)\b/giu, ' occupation '],
  [/^(\s*what\s+(?:does|do|did)\s+.{1,60}?)\s+do(?:\s+(?:now|nowadays|these\s+days))?\s*[?？]*\s*$/iu, '$1 occupation'],
  [/\bwhere\s+(?:is|are|was|were|'s)\s+(\S+)\s+(?:originally\s+)?from\b/giu, ' where $1 hometown '],
];

/**
 * builtin-v6's too: a question that asks *when* someone was born asks for a birthday ("when was
 * she born?", "what year was he born?", 她哪天出生的？), while "where was she born?" asks for a
 * hometown; the birthday cue is added and "born" kept, since facts say "was born in 1979" too.
 */
const V6_QUESTION_PHRASES: readonly (readonly [RegExp, string])[] = [
  ...QUESTION_PHRASES,
  [/\b(?:when|(?:what|which)\s+(?:year|day|date|month))\b[^?？.]{0,60}?\bborn\b/giu, '$& birthday'],
  [/(?:哪天|哪一天|哪年|哪一年|什么时候|几月几号|几月几日|几号)出生/gu, '$&生日'],
];

/**
 * builtin-v8's too: a question that asks where someone *grew up* or *comes from* asks for a
 * hometown, as "where is she from?" does (v5), and so does 她是哪里人？ ("where is she a person
 * of?"), whose words name no kind: each is read with the hometown cue beside its words.
 */
const V8_QUESTION_PHRASES: readonly (readonly [RegExp, string])[] = [
  ...V6_QUESTION_PHRASES,
  [/\b(?:grow|grows|growing|grew|grown)\s+up\b/giu, '$& hometown'],
  [/\b(?:come|comes|came)\s+from\b/giu, '$& hometown'],
  [/(?:哪里|哪儿|哪个地方|什么地方)(?:的)?人/gu, '$&老家'],
];

/**
 * builtin-v10's too: everyday phrases that ask for, or state, a kind in words that name none. A
 * question asks someone's *age* with "how old" or "what age", and a fact states it with a number
 * of years ("is 31", "turned 44", "a twelve-year-old", "born in 1974", 五十二岁): both are read
 * with the age cue beside their words. Where someone is *based* or *stays* asks for their home;
 * how someone *gets around* or *gets to work* for how they travel; what someone *does for work*
 * for an occupation, as "for a living" does; *free time* and *days off* for pastimes; one's *other
 * half* is a partner; *popping the question* is a proposal.
 */
const V10_QUESTION_PHRASES: readonly (readonly [RegExp, string])[] = [
  ...V8_QUESTION_PHRASES,
  [/\bhow\s+old\b|\bwhat\s+age\b/giu, ' age '],
  [
    /(?:\bis|\bam|['’]m|['’]s|\bare|\bturned|\bturning|\bturns|\baged?|\bjust)\s+(?:\d{1,3}|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-]?(?:one|two|three|four|five|six|seven|eight|nine))?\b(?![\d,.:])(?!\s*(?:%|percent|kg|kilos?|km|miles?|metres?|meters?|cm|foot|feet|ft|inch(?:es)?|stone|lbs?|degrees?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|times|am|pm|o'clock|past|to\b|of\b|out\b|per\b|a\s+(?:day|week|month|year)\b|points?|goals?|euros?|pounds?|dollars?|quid|k\b))/giu,
    '$& age',
  ],
  [/\b(?:\d{1,3}|[a-z]+(?:-[a-z]+)?)[\s-]years?[\s-]old\b/giu, '$& age'],
  [/\bborn\s+(?:in\s+)?(?:19|20)\d\d\b/giu, '$& age'],
  [/(?:\d{1,3}|[一二两三四五六七八九十]{1,3})岁|多大年纪|多大了|几岁|多少岁|年纪/gu, '$&年龄'],
  [/\bwhere(?:\s+(?:do|does|did|is|are|am)|['’]s)\s+\S+\s+(?:stay|staying|based)\b/giu, '$& home'],
  [
    /\bget(?:s|ting)?\s+(?:around|about)\b|\bget(?:s|ting)?\s+to\s+(?:work|the\s+office|the\s+station|school|uni)\b/giu,
    '$& commute',
  ],
  [/\b(?:free|spare|down)\s*time\b|\bdays?\s+off\b/giu, '$& hobby'],
  [/\b(?:do|does|did|doing)\s+for\s+(?:work|a\s+job|money)\b/giu, ' occupation '],
  [/\bother\s+half\b/giu, ' partner '],
  [/\bpop(?:s|ping|ped)?\s+the\s+question\b/giu, ' propose '],
];

/**
 * builtin-v11's too. An age said without an apostrophe ("im 26", "hes 40"). A partner asked about
 * or stated with *seeing* or *dating* someone, a *new man* in one's life, one's *love life*. An
 * operation asked about ("any operations?", "surgery", 手术) or stated as what was done (a hip
 * replacement, a transplant, a bypass, something removed). A trip stated as going somewhere at a
 * time ("going to nashville in march"). Food eaten when one is low asks for comfort food.
 * A date of birth said short (DOB, bday) is a birthday.
 */
const V11_QUESTION_PHRASES: readonly (readonly [RegExp, string])[] = [
  ...V10_QUESTION_PHRASES,
  [
    /\b(?:im|hes|shes|ur)\s+\d{1,3}\b(?![\d,.:])(?!\s*(?:%|percent|kg|kilos?|km|miles?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|times|am|pm|min\b|k\b))/giu,
    '$& age',
  ],
  [
    /\bseeing\s+(?:anyone|anybody|someone|somebody|a\s+(?:guy|girl|man|woman|bloke|fella|lad|lass))\b|\b(?:been|is|are|am|was|started|start|starts)\s+seeing\b|\bdating\b|\bnew\s+(?:man|woman|fella|bloke|guy|girl)\b|\bin\s+a\s+relationship\b|\blove\s+life\b|\bsignificant\s+other\b/giu,
    '$& partner',
  ],
  [
    /\boperations?\b|\bsurger(?:y|ies)\b|\boperated\s+on\b|\bunder\s+the\s+knife\b|\b(?:hip|knee|shoulder|joint|valve)\s+replacement\b|\btransplant\b|\bbypass\s+(?:surgery|operation)\b|\b(?:had|got|having|have)\s+(?:(?:his|her|my|their|a|an|the)\s+)?(?:\w+\s+)?(?:removed|taken\s+out)\b|\bappendectomy\b|\bc-section\b|\bcaesarean\b/giu,
    '$& surgery',
  ],
  [/手术|开刀|动过刀/gu, '$&手术'],
  // "what's her cat called?" asks for a name, not for a phone call.
  [/^(\s*what(?:['’]s|\s+(?:is|are|was|were))\s+.{1,50}?)\s+called(\s*[?？]*\s*)$/iu, '$1 name$2'],
  [
    /\b(?:going|flying|heading|travelling|traveling|driving|off)\s+(?:out\s+|over\s+|back\s+)?to\s+\S+(?:\s+\S+)?\s+(?:in|on|for|next|this|over)\s+(?:january|february|march|april|may|june|july|august|september|october|november|december|spring|summer|autumn|fall|winter|christmas|easter|the\s+holidays|\d)/giu,
    '$& trip',
  ],
  [
    /\bwhen\s+(?:i|she|he|they|you)(?:['’]?m|['’]?s|['’]?re|\s+(?:am|is|are|feel|feels|get|gets))\s+(?:sad|down|low|upset|stressed|blue|depressed|miserable)\b/giu,
    '$& comfort',
  ],
  // A date of birth said short ("DOB 11 June 1986", "bday is 30 october") is a birthday, and says an age.
  [/\b(?:DOB|D\.O\.B\.?|date\s+of\s+birth)(?![\p{L}])/gu, '$& birthday born age'],
  [/\b(?:b-?day|bday|birthdate)s?\b/giu, '$& birthday'],
];

/** Phrase sets by the builtin model version that reads them (5 = builtin-v5's, 6 = v6's and v7's, 8 = v8's and v9's, 10 = v10's, 11 = v11's). */
export type QuestionPhraseSet = 5 | 6 | 8 | 10 | 11;

const PHRASE_SETS: Readonly<Record<QuestionPhraseSet, readonly (readonly [RegExp, string])[]>> = {
  5: QUESTION_PHRASES,
  6: V6_QUESTION_PHRASES,
  8: V8_QUESTION_PHRASES,
  10: V10_QUESTION_PHRASES,
  11: V11_QUESTION_PHRASES,
};

/** `text` with the question phrases of `set` replaced by the cue of the kind they ask for. */
export function rewriteQuestionPhrases(text: string, set: QuestionPhraseSet = 5): string {
  let out = text;
  for (const [phrase, cue] of PHRASE_SETS[set]) out = out.replace(phrase, cue);
  return out;
}

/**
 * Light verbs, as keyword terms: "do they *keep* a dog?" is not asking about "*keeps* her inhaler
 * in her handbag", nor "where are we *going*…" about "we *go* to First Baptist". They carry little
 * meaning of their own, so a query's are not searched for (facts keep theirs). Only these two:
 * leaving out make, take, give, put, use and get as well gained as much on personal facts and cost
 * REALTALK 0.3–0.4 points of recall@10 (what someone made, took or got is what a chat question asks).
 */
const LIGHT_VERB_TERMS: ReadonlySet<string> = new Set(keywordTokens('keep keeps kept keeping go goes going'));

/**
 * The keyword terms of a query: its question phrases (builtin-v11's set: "how old" asks for an
 * age, not for "old") read as the kinds they ask for, its light verbs left out.
 */
export function queryKeywordTokens(query: string): string[] {
  return keywordTokens(rewriteQuestionPhrases(query, 11)).filter((term) => !LIGHT_VERB_TERMS.has(term));
}
