/**
 * Questions that ask what someone does for a living, and facts that say it, read from how they are
 * said rather than from the job's name: "What do I do for a living?" is answered by "I'm an air
 * traffic controller at Heathrow", "Rafael writes code for a bank", "我在上海送外卖", whose job
 * titles the embedder's answer kinds do not know (it knows "nurse" and "fisherman", not "ferry
 * master" or "line cook"). A search lifts such a fact to a modest relevance for such a question
 * (search.ts, `RankingWeights.occupationMatch`); which person it is about is weighed as for any
 * fact (relations.ts). General phrasing of job statements, EN and ZH, not tuned to any dataset.
 */

const ASKS_EN = new RegExp(
  [
    String.raw`\bfor (?:a )?living\b`,
    String.raw`\bmake (?:a|her|his|my|their) living\b`,
    String.raw`\bearns? (?:a|her|his|my|their|your) (?:living|money|keep)\b`,
    String.raw`\bdo for work\b`,
    String.raw`\b(?:job|jobs|profession|occupation|career|vocation|trade|line of work|employer|employed|employment)\b`,
    String.raw`\bwhere (?:does|do|did) (?:he|she|i|they|you) work\b`,
    String.raw`\bwhat (?:does|do|did) (?:he|she|i|they|you) do(?: now| these days| again| exactly)?\s*\??$`,
    String.raw`\bwhat (?:does|do|did) (?:he|she|i|they|you) (?:use to )?do (?:before|until) (?:he|she|i|they|you) (?:retired|stopped)`,
  ].join('|'),
  'iu',
);

const ASKS_ZH =
  /做什么工作|干什么工作|什么工作|干什么的|做什么的|干啥的|做啥的|是做什么|干哪行|哪一行|什么职业|职业|谋生|靠(?:什么|啥)吃饭|做什么生意|干什么活|在哪(?:儿|里)?上班|什么营生/u;

const STATES_EN = new RegExp(
  [
    String.raw`\b(?:works?|worked|working)\s+(?:as|for)\b`,
    String.raw`\b(?:employed|hired)\s+(?:as|by|at)\b`,
    String.raw`\bjob\s+(?:as|at|with|in)\b`,
    String.raw`\b(?:i'?m|i am|he'?s|she'?s|he is|she is|they'?re|is|was)\s+(?:now\s+)?(?:a|an)\s+(?:[\p{L}-]+\s+){0,3}[\p{L}-]+\s+(?:at|for|with)\s+(?:a|an|the|[\p{Lu}\d])`,
    String.raw`\bretired\b[^.;]*\b(?:as|from|after)\b`,
    String.raw`\b(?:teach|teaches|taught|lectures?)\s+(?:at|in)\b`,
    String.raw`\bwrites? code\b`,
    String.raw`\b(?:self-employed|freelance|freelancer|owner-operator)\b`,
    String.raw`\b(?:runs?|owns?|opened)\s+(?:a|an|her|his|my|their)\s+(?:own\s+)?(?:[\p{L}-]+\s+){0,2}(?:shop|business|bakery|salon|restaurant|cafe|café|studio|practice|firm|company|farm|pub|clinic|store|garage|workshop)\b`,
  ].join('|'),
  'iu',
);

const STATES_ZH =
  /在[^，。,；;]{1,14}(?:上班|工作|打工|任职|教书|当)|是(?:一名|一位|个)?[^，。,；;的]{0,8}(?:司机|老师|教师|护士|医生|工人|工程师|程序员|会计|律师|厨师|店主|老板|经理|员|师|工|匠)(?:[，。,；;]|$)|退休前|开了(?:一|两|几)?家|做生意|送外卖|跑长途|当了[^，。,；;]{0,4}年|教了[^，。,；;]{0,4}年|干了[^，。,；;]{0,4}年/u;

/** A question about a job to come or the job's toll ("career ambitions", "aches from the job", 职业规划) asks for something else. */
const ASKS_ELSE_EN =
  /\b(?:ambitions?|plans?|planning|intentions?|goals?|considering|thinking|move|change|switch|future|become|aches?|pains?|injur\w*|hurt\w*|stress\w*)\b/iu;
const ASKS_ELSE_ZH = /规划|打算|计划|想|将来|以后|梦想|目标|累|伤|疼|痛/u;

const HAN = /\p{Script=Han}/u;

/** Whether a question asks what someone does (or did) for a living. */
export function asksForOccupation(question: string): boolean {
  return HAN.test(question)
    ? ASKS_ZH.test(question) && !ASKS_ELSE_ZH.test(question)
    : ASKS_EN.test(question) && !ASKS_ELSE_EN.test(question);
}

/** Whether a fact says what someone does (or did) for a living, however the job is named. */
export function statesOccupation(text: string): boolean {
  return HAN.test(text) ? STATES_ZH.test(text) : STATES_EN.test(text);
}
