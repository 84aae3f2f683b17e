import type { SearchHit } from '@hindsight/memory-model';
import { ENGLISH_STOP_WORDS, stem } from '@hindsight/text';
import { classifyMessage } from './message-kind.ts';

/**
 * Which memories answer a question. A search returns what is close to the question; an
 * answer needs what is about the thing asked: "What is my wife called?" is answered by the
 * memory about the wife, not by the daughter's name that scores nearly as well. The question's
 * focus is the concepts it asks about (below, in English and Chinese) plus its remaining
 * content words; the memories that cover the most of it answer, best-scored first.
 */
interface Concept {
  /** The concept asked about in a question. */
  asked: RegExp;
  /** The concept said in a memory (however the extractor or the user put it). */
  said: RegExp;
  /** Added to the search so memories saying it another way (or in the other language) are found. */
  terms: string;
  /** Someone other than the user: a memory about them does not answer a question about the user. */
  person?: boolean;
}

const b = (words: string) => `\\b(?:${words})\\b`;
const concept = (asked: string, said: string, terms: string, person = false): Concept => ({
  asked: new RegExp(asked, 'i'),
  said: new RegExp(said, 'i'),
  terms,
  person,
});

const NUMBER_WORDS =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|\\d+';
const OCCUPATIONS =
  'nurse|doctor|teacher|engineer|developer|programmer|designer|manager|lawyer|accountant|student|professor|chef|cook|driver|pilot|scientist|researcher|writer|journalist|artist|musician|architect|consultant|analyst|pharmacist|dentist|vet|veterinarian|electrician|plumber|mechanic|farmer|firefighter|officer|police|cashier|waiter|waitress|barista|baker|librarian|retired|freelancer|founder|ceo|cto|intern|surgeon|therapist|paramedic|carpenter|photographer|translator|editor|salesman|clerk|secretary|banker|economist';

const DOG_BREEDS =
  'retriever|labrador|lab|poodle|terrier|spaniel|beagle|bulldog|shepherd|husky|dachshund|collie|corgi|pug|chihuahua|greyhound|doberman|rottweiler|schnauzer|dalmatian';

export const CONCEPTS: readonly Concept[] = [
  concept(
    `allerg|intoleran|过敏|不耐受`,
    `allerg|intoleran|tolerate|过敏|不耐受`,
    'allergic allergy allergies intolerant 过敏',
  ),
  concept(
    `${b('eat|eats|eating|food|foods|diet|diets|dietary|restrictions?|meat|vegetarian|vegan|pork|beef|dairy|gluten')}|吃|素|忌口|饮食`,
    `${b('eat|eats|food|foods|dish|dishes|cuisine|diet|vegetarian|vegan|pescatarian|meat|pork|beef|halal|kosher|gluten|lactose|dairy|allergic|intolerant|tolerate|avoids?|coeliac|celiac')}|吃|素|忌口|过敏|清真|食物|菜`,
    'eat diet vegetarian vegan allergic avoid 吃 素食 忌口 过敏',
  ),
  concept(
    `${b('work|works|working|job|jobs|profession|occupation|career|employer|employed|company|office|for a living')}|工作|职业|上班|干什么的|做什么的|公司|单位`,
    `${b(`work|works|worked|working|job|profession|occupation|career|employ\\w*|company|${OCCUPATIONS}`)}|工作|职业|上班|公司|单位|医生|老师|护士|工程师|学生|银行|律师|程序员|设计师|会计|经理`,
    'work works job profession occupation employer company 工作 职业',
  ),
  concept(
    `${b('live|lives|home|reside|based|moved|move|hometown|address|city|town')}|(?<!\\ba )\\bliving\\b|住|家在|搬`,
    `${b('live|lives|lived|living|home|moved|reside|resides|based|relocated')}|住|搬|家在`,
    'live lives home moved city 住 搬家',
  ),
  concept(
    `${b('from|born|grew up|hometown|nationality')}|哪里人|哪儿人|老家|出生在`,
    `${b('from|born|grew up|hometown|native')}|老家|出生|人。?$`,
    'from born grew up hometown 老家',
  ),
  concept(
    `${b('meat|beef|pork|chicken|ham|bacon')}|肉`,
    `${b('vegetarian|vegan|pescatarian|meat|beef|pork|chicken|halal|kosher')}|素|肉|清真`,
    'meat vegetarian vegan 肉 素食',
  ),
  concept(
    `${b('old|age|aged')}|多大|几岁|年龄|岁数`,
    // An age, not any number: "she is seven", "aged 40", "12 years old" — "has two kids" is not one.
    `${b(`old|age|aged|years? old|(?:is|am|are|was|turned|turns|turning|he's|she's|i'm)\\s+(?:${NUMBER_WORDS})`)}|(?:${NUMBER_WORDS})\\s*(?:years?|yrs?)\\b|岁|年龄`,
    'age old years 岁',
  ),
  concept(`birthday|born|生日|出生`, `birthday|born|生日|出生`, 'birthday born 生日'),
  concept(
    `${b('my name')}|我叫什么|我的名字|what am i called|call me`,
    `${b('name|named|called|call me|goes by')}|叫|名字`,
    'name called 名字 叫',
  ),
  concept(`${b('daughters?')}|女儿|闺女`, `${b('daughters?')}|女儿|闺女`, 'daughter 女儿', true),
  concept(`${b('sons?')}|儿子`, `${b('sons?')}|儿子`, 'son 儿子', true),
  concept(
    `${b('child|children|kids?')}|孩子|小孩`,
    `${b('child|children|kids?|daughters?|sons?')}|孩子|小孩|女儿|儿子`,
    'children kids daughter son 孩子',
    true,
  ),
  concept(
    `${b('wife|spouse')}|老婆|妻子|太太|爱人`,
    `${b('wife|spouse')}|老婆|妻子|太太|爱人`,
    'wife spouse 妻子 老婆',
    true,
  ),
  concept(
    `${b('husband|spouse')}|老公|丈夫|爱人`,
    `${b('husband|spouse')}|老公|丈夫|爱人`,
    'husband spouse 丈夫 老公',
    true,
  ),
  concept(
    `${b('partner|boyfriend|girlfriend|fianc[ée]e?')}|男朋友|女朋友|对象`,
    `${b('partner|boyfriend|girlfriend|fianc[ée]e?|wife|husband')}|男朋友|女朋友|对象|老婆|老公`,
    'partner boyfriend girlfriend 对象',
    true,
  ),
  concept(
    `${b('mother|mom|mum|mommy|mama')}|妈妈|母亲|老妈`,
    `${b('mother|mom|mum|mommy|mama')}|妈妈|母亲|老妈`,
    'mother mom 妈妈',
    true,
  ),
  concept(
    `${b('father|dad|daddy|papa')}|爸爸|父亲|老爸`,
    `${b('father|dad|daddy|papa')}|爸爸|父亲|老爸`,
    'father dad 爸爸',
    true,
  ),
  concept(
    `${b('parents?')}|父母|爸妈`,
    `${b('parents?|mother|father|mom|dad|mum')}|父母|爸妈|妈妈|爸爸`,
    'parents 父母',
    true,
  ),
  concept(
    `${b('married|marriage|marital|single|divorced|engaged')}|结婚|已婚|单身|离婚|对象`,
    `${b('married|wife|husband|spouse|partner|divorced|single|engaged|fianc[ée]e?|boyfriend|girlfriend')}|结婚|已婚|单身|离婚|老婆|老公|妻子|丈夫|对象`,
    'married wife husband partner 结婚 老婆 老公',
  ),
  concept(
    `${b('siblings?')}|兄弟姐妹`,
    `${b('brothers?|sisters?|siblings?|twin')}|哥哥|弟弟|姐姐|妹妹|兄弟|姐妹`,
    'brother sister sibling 哥哥 姐姐 弟弟 妹妹',
    true,
  ),
  concept(`${b('brothers?')}|哥哥|弟弟|兄弟`, `${b('brothers?')}|哥哥|弟弟|兄弟`, 'brother 哥哥 弟弟', true),
  concept(`${b('sisters?')}|姐姐|妹妹|姐妹`, `${b('sisters?')}|姐姐|妹妹|姐妹`, 'sister 姐姐 妹妹', true),
  concept(
    `${b('grand(?:mother|father|ma|pa|parents?)|granny|grandma|grandpa')}|奶奶|爷爷|外婆|外公|姥姥|姥爷`,
    `${b('grand(?:mother|father|ma|pa|parents?)|granny')}|奶奶|爷爷|外婆|外公|姥姥|姥爷`,
    'grandmother grandfather 奶奶 爷爷',
    true,
  ),
  concept(
    `${b('family|families|relatives')}|家人|家里人|亲人`,
    `${b('family|daughters?|sons?|wife|husband|mother|father|mom|dad|brothers?|sisters?|children|kids?|parents?')}|家人|女儿|儿子|妻子|老婆|丈夫|老公|妈妈|爸爸|哥哥|弟弟|姐姐|妹妹|孩子|父母`,
    'family daughter son wife husband 家人',
    true,
  ),
  concept(`${b('friends?|bff')}|朋友`, `${b('friends?|bff')}|朋友`, 'friend 朋友', true),
  concept(
    `${b('boss|manager|supervisor')}|老板|领导|上司`,
    `${b('boss|manager|supervisor')}|老板|领导|上司`,
    'boss 老板',
    true,
  ),
  concept(
    `${b('colleagues?|coworkers?|co-workers?')}|同事`,
    `${b('colleagues?|coworkers?|co-workers?')}|同事`,
    'colleague 同事',
    true,
  ),
  concept(
    `${b('pets?|animals?')}|宠物`,
    `${b('pets?|dogs?|cats?|puppy|kitten|hamster|rabbit|parrot')}|宠物|狗|猫`,
    'pet dog cat 宠物 狗 猫',
    true,
  ),
  concept(
    `${b('dogs?|puppy|puppies')}|狗`,
    `${b(`dogs?|puppy|puppies|${DOG_BREEDS}`)}|狗`,
    `dog puppy ${DOG_BREEDS.split('|').join(' ')} 狗`,
    true,
  ),
  concept(
    `${b('cats?|kittens?')}|猫`,
    `${b('cats?|kittens?|tabby|siamese|persian|maine coon|ragdoll')}|猫`,
    'cat kitten tabby siamese 猫',
    true,
  ),
  concept(
    `${b('car|cars|drive|drives|vehicle')}|车`,
    `${b('car|cars|drive|drives|driving|vehicle|toyota|honda|tesla|bmw|ford|volkswagen|audi|mercedes|nissan|hyundai|kia|volvo|mazda|subaru')}|车`,
    'car drive drives vehicle 车',
  ),
  concept(
    `${b('language|languages|speak|speaks|learning|learn|studying')}|语言|学什么|说什么话`,
    `${b('language|languages|speak|speaks|learning|learn|english|spanish|french|german|chinese|japanese|italian|mandarin|korean|portuguese|russian|arabic')}|语|学`,
    'language speak learning 语言',
  ),
  concept(
    `${b('like|likes|love|loves|enjoy|enjoys|favou?rite|prefer|fan')}|喜欢|爱|最爱|偏好`,
    `${b('like|likes|love|loves|enjoy|enjoys|favou?rite|prefer|prefers|fan|into')}|喜欢|爱|最爱|偏好`,
    'likes loves favourite favorite enjoys prefers 喜欢 最爱',
  ),
  concept(
    `${b('hate|hates|dislike|dislikes|stand')}|讨厌|不喜欢|受不了`,
    `${b('hate|hates|dislike|dislikes|stand|not like')}|讨厌|不喜欢|受不了`,
    'hates dislikes 讨厌 不喜欢',
  ),
  concept(
    `${b('drink|drinks|coffee|tea|beverage')}|喝|饮料|茶|咖啡`,
    `${b('drink|drinks|coffee|tea|beverage|juice|wine|beer')}|喝|饮料|茶|咖啡`,
    'drink coffee tea 喝 茶',
  ),
  concept(
    `${b('hobby|hobbies|free time|spare time|for fun|pastime|weekends?')}|爱好|业余|兴趣`,
    `${b('hobby|hobbies|enjoy|enjoys|play|plays|playing|free time|spare time|weekends?|for fun')}|爱好|业余|兴趣`,
    'hobby enjoys plays free time 爱好',
  ),
  concept(
    `${b('study|studies|studied|school|university|college|degree|major')}|学校|大学|专业|读书|上学`,
    `${b('study|studies|studied|studying|university|college|degree|major|graduated|graduate|alumn\\w*|student|(?:went to|goes to|go to|attends?|attended) (?:\\w+ )?school')}|学校|大学|专业|读书|上学|学生|毕业`,
    'study school university degree 学校 大学',
  ),
  concept(
    `${b('trip|travel|travelling|traveling|vacation|holiday|flight|visit')}|旅行|旅游|出差|度假`,
    `${b('trip|travel|travelling|traveling|flight|vacation|holiday|visit|visiting|booked|going to')}|旅行|旅游|出差|度假|去`,
    'trip travel vacation flight booked 旅行',
  ),
  concept(
    `${b('plan|plans|planning|going to|intend|goal|goals')}|计划|打算|目标`,
    `${b('plan|plans|planning|going to|will|intends?|wants? to|goal|goals')}|计划|打算|准备|目标|想`,
    'plan plans planning goal 计划 打算',
  ),
  concept(
    `${b('health|medical|condition|medication|medicine|sick|illness')}|健康|病|药`,
    `${b('allerg\\w*|diabet\\w*|asthma|coeliac|celiac|condition|medication|medicine|takes|pills?|blood pressure')}|病|药|过敏`,
    'health condition medication 健康 药',
  ),
  concept(
    `${b('sports?|exercise|gym|run|running|workout')}|运动|健身|跑步`,
    `${b('sports?|exercise|gym|runs?|running|workout|football|soccer|tennis|swim\\w*|yoga|cycling|basketball|hiking')}|运动|健身|跑步|游泳|瑜伽|篮球|足球`,
    'sport exercise gym running 运动',
  ),
];

/** Words that carry the question, not its topic. */
const SCAFFOLDING = new Set(
  (
    'know knew remember recall remind tell told say said mention mentioned idea ideas name named called call please ' +
    'thing things anything something stuff kind sort type again actually currently right now guess think sure wonder ' +
    'forgot forget want need could would like question ask asked give show happen happened ever usually exactly ' +
    'anymore time last recently today yesterday info information detail details'
  ).split(' '),
);
const ZH_SCAFFOLDING =
  /请问|你还记得|还记得|记不记得|你知道|知道|告诉我|提醒我|我跟你说过|我说过|什么|啥|哪里|哪儿|哪个|哪些|哪天|哪年|哪家|哪位|哪|谁|几|多少|多久|怎么样|怎么|为什么|是不是|有没有|是否|名字|叫|吗|呢|吧|的|了|是|在|我们|我|你|您|有|对|做|个|一下|[，。？！?,.!\s]/g;

export interface QuestionFocus {
  concepts: Concept[];
  /** Content words of the question no concept accounts for: stems (English) or Han runs (Chinese). */
  words: string[];
}

const ENGLISH_WORD = /[a-z][a-z'-]*/g;

export function focusOf(question: string): QuestionFocus {
  const lower = question.toLowerCase();
  const concepts = CONCEPTS.filter((c) => c.asked.test(lower));
  // What the concepts account for ("for a living", "多大") is not a word to look for as well.
  let rest = lower;
  for (const c of concepts) rest = rest.replace(new RegExp(c.asked.source, 'gi'), ' ');
  const words: string[] = [];
  for (const raw of rest.match(ENGLISH_WORD) ?? []) {
    const word = raw.replace(/'s$/, '').replace(/'/g, '');
    if (word.length < 3 || ENGLISH_STOP_WORDS.has(word) || SCAFFOLDING.has(word)) continue;
    words.push(stem(word));
  }
  const han = (rest.match(/\p{Script=Han}+/gu) ?? []).join('，');
  for (const run of han.replace(ZH_SCAFFOLDING, '，').split('，')) if (run.length >= 2) words.push(run);
  return { concepts, words };
}

/** The question with the words of the concepts it asks about, so memories that say them differently are found. */
export function expandedQuery(question: string): string {
  const { concepts } = focusOf(question);
  const terms = [...new Set(concepts.flatMap((c) => c.terms.split(' ')))];
  return terms.length > 0 ? `${question} ${terms.join(' ')}` : question;
}

/** The words of a turn as memory quotes them ("The user said: …" in long-term memory, bare in working memory). */
export function spokenBy(hit: SearchHit): 'user' | 'assistant' | undefined {
  const role = hit.metadata.role;
  if (role === 'user' || role === 'assistant') return role;
  const said = /^\s*the (user|assistant) said:/i.exec(hit.content);
  return said ? (said[1]?.toLowerCase() as 'user' | 'assistant') : undefined;
}

const SAID_PREFIX = /^\s*the (?:user|assistant) said:\s*/i;

/**
 * Memories that can be told back to the user: not the assistant's own replies, of the
 * user's own words only what states something (a question or an instruction is not a fact), not session summaries or the profile
 * (they repeat the memories they are made of), not the message being answered.
 */
export function tellable(hits: readonly SearchHit[], message: string): SearchHit[] {
  const asked = message.trim();
  return hits.filter((hit) => {
    if (hit.category === 'summary' || hit.category === 'profile') return false;
    const speaker = spokenBy(hit);
    if (speaker === 'assistant') return false;
    const words = hit.content.replace(SAID_PREFIX, '').trim();
    if (words === asked) return false;
    if (speaker !== 'user') return true;
    const kind = classifyMessage(words).kind;
    return kind === 'statement' || kind === 'correction' || kind === 'remember';
  });
}

function covers(c: Concept, text: string): boolean {
  return c.said.test(text);
}

function coversWord(word: string, text: string, stems: ReadonlySet<string>): boolean {
  return /\p{Script=Han}/u.test(word) ? text.includes(word) : stems.has(word);
}

/** The content words of a text, stemmed. */
function stemsOf(text: string): Set<string> {
  const words = (text.toLowerCase().match(ENGLISH_WORD) ?? []).map((w) => w.replace(/'s$/, '').replace(/'/g, ''));
  return new Set(words.filter((w) => !ENGLISH_STOP_WORDS.has(w)).map((w) => stem(w)));
}

export interface Selection {
  /** The memories that answer, best first; empty when nothing known answers the question. */
  answers: SearchHit[];
  /** The question asks about nothing in particular ("What do you know about me?"). */
  open: boolean;
}

/** Of memories that share this many of their words with a better one, only the better is told. */
const SAME_MEMORY_OVERLAP = 0.5;

/**
 * The memories that answer `question`, at most `limit`: those covering the most of its focus
 * (a memory about someone the question does not ask about does not count), the same fact told
 * twice (a transcript turn and the fact distilled from it) once, semantic before episodic.
 */
export function selectAnswers(question: string, hits: readonly SearchHit[], limit: number): Selection {
  const focus = focusOf(question);
  const candidates = tellable(hits, question);
  if (focus.concepts.length === 0 && focus.words.length === 0) {
    return { answers: distinct(candidates.filter((h) => h.layer === 'semantic')).slice(0, limit), open: true };
  }
  const asksAboutPerson = focus.concepts.some((c) => c.person);
  const scored = candidates.map((hit) => {
    const text = hit.content.replace(SAID_PREFIX, '');
    const stems = stemsOf(text);
    const words = focus.words.filter((w) => coversWord(w, text, stems)).length;
    const concepts = focus.concepts.filter((c) => covers(c, text)).length;
    // A memory about the user's brother does not say where the user lives.
    const aboutSomeoneElse = !asksAboutPerson && words === 0 && isAboutSomeoneElse(text);
    return { hit, coverage: aboutSomeoneElse ? 0 : concepts + words };
  });
  const best = Math.max(0, ...scored.map((s) => s.coverage));
  if (best === 0) return { answers: [], open: false };
  const answering = scored
    .filter((s) => s.coverage === best)
    .map((s) => s.hit)
    .sort((x, y) => rank(y) - rank(x));
  return { answers: distinct(answering).slice(0, limit), open: false };
}

/**
 * Whether the memory's subject is another person ("The user's brother lives …", "The user has a son
 * named …", "我女儿叫…"), judged on its opening words.
 */
function isAboutSomeoneElse(text: string): boolean {
  const opening = /\p{Script=Han}/u.test(text.slice(0, 8))
    ? text.replace(/^(?:用户|我)的?/, '').slice(0, 4)
    : text.split(/\s+/).slice(0, 5).join(' ');
  return CONCEPTS.some((c) => c.person && c.said.test(opening));
}

/** This session's words first (the newest thing said), then semantic facts, then by score. */
function rank(hit: SearchHit): number {
  return hit.score + (hit.layer === 'working' ? 2 : hit.layer === 'semantic' ? 1 : 0);
}

/** Distilled facts before this session's words before the transcript. */
function layerRank(hit: SearchHit): number {
  return hit.layer === 'semantic' ? 2 : hit.layer === 'working' ? 1 : 0;
}

/**
 * Memories in order, one of each group that mostly says the same: the distilled fact over
 * the turn it came from, and of two facts about the same thing the newer — "lives in Lisbon"
 * written after "lives in Berlin" was corrected.
 */
export function distinct(hits: readonly SearchHit[]): SearchHit[] {
  const kept: Array<{ hit: SearchHit; stems: Set<string> }> = [];
  for (const hit of hits) {
    const text = hit.content.replace(SAID_PREFIX, '');
    const stems = /\p{Script=Han}/u.test(text) ? new Set(text.replace(/[，。！？\s]/g, '').split('')) : stemsOf(text);
    for (const s of ['user', '用', '户', '我', '你', '的', '是']) stems.delete(s);
    const same = kept.find((k) => overlap(k.stems, stems) >= SAME_MEMORY_OVERLAP);
    if (!same) kept.push({ hit, stems });
    else if (supersedes(hit, same.hit)) same.hit = hit;
  }
  return kept.map((k) => k.hit);
}

function supersedes(hit: SearchHit, other: SearchHit): boolean {
  const byLayer = layerRank(hit) - layerRank(other);
  return byLayer > 0 || (byLayer === 0 && Date.parse(hit.created_at) > Date.parse(other.created_at));
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const x of b) if (a.has(x)) shared++;
  return shared / Math.min(a.size, b.size);
}
