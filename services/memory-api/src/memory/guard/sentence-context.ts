/**
 * What the rest of a sentence says about a phrase that looks like an instruction. People store
 * memories *about* instructions all the time — "the user said: ignore what I wrote about the
 * meeting time", a film quote, a note on prompt injection — and those are not orders to the
 * model. Each softener lowers the evidence of its sentence; together by at most MAX_SOFTENING,
 * so wrapping a real payload in "the user said" does not launder it.
 */

import { foldSource, type SignalFamily } from './phrase.ts';

export const MAX_SOFTENING = 3;

/** A pattern over the canonical text: its source folded the way the text is. */
const folded = (sources: string[]) => new RegExp(foldSource(sources.join('|')), 'u');

/** The sentence talks to or about an AI model (or addresses "you"). */
export const AI_CONTEXT = folded([
  '(?<![\\p{L}\\p{N}])(?:ai|a\\.i\\.|assistant|chatbot|bot|model|llm|gpt|chatgpt|claude|gemini|copilot|language model|you|your|yourself|respond|reply|answer|responses|answers|replies|refuse|refusing)(?![\\p{L}\\p{N}])',
  '(?<![\\p{L}\\p{N}])(?:ia|asistente|assistente|modelo|modele|ki|assistent|modell|ии|ассистент|модель|бот|ты|тебя|твои|свои|tu|tus|ton|ta|tes|votre|vos|vous|du|dich|dir|dein\\p{L}*|eres|reponds|responde|antworte|antwoord|отвечай|voce|jij|jouw|je bent|sen|sana)(?![\\p{L}\\p{N}])',
  '人工智能|助手|模型|机器人|你|アシスタント|モデル|ボット|あなた|인공지능|어시스턴트|모델|봇|너|당신|ذكاء اصطناعي|مساعد|أنت',
]);

const b = (alternatives: string) => `(?<![\\p{L}\\p{N}])(?:${alternatives})(?![\\p{L}\\p{N}])`;

/** Discussion, fiction, quotation: the sentence is about such text, not an instance of it. */
const META = folded([
  b(
    'prompt[- ]injections?|jailbreak(?:s|ing)? (?:prompts?|attempts?|attacks?|examples?)|injection attacks?|attackers?|red[- ]team(?:ing|ers)?|adversarial|classifiers?|detectors?|flagged|flags (?:it|them|these|such|jailbreaks|prompts|attacks)|detects?|detected|blocked|blocks (?:it|them|these|such|attacks)|catches (?:it|them|these|such|attacks)|caught|examples?|e\\.g\\.|for example|such as|(?:phrases?|strings?|things|text|patterns?|lines?|messages?) (?:like|such as)|so-called|titled|talk|lecture|course|workshop|paper|article|blog|essay|book|novel|chapter|film|movie|song|lyrics|poem|quote|quoted|podcast|episode|headline|line from|attacks?|tricked|fooled|exploits?|exploited|vulnerab\\p{L}*|regex(?:es)?|regexps?|regular expressions?|detectors?|tests?|testing|tested|test cases?|staging|evals?|evaluations?|benchmarks?|payloads?|expects? (?:a |an |the )?(?:4\\d\\d|error|refusal|rejection)|unit tests?|tests? (?:that|whether|if)|test suite|reading|is reading|bestseller|author|memoir|biography|documentary|album|slogan|motto|poster|learned (?:that|today|about)|explained|studying|studies|research(?:ing|ers?)?|how [^.]{0,40} works',
  ),
  '提示注入|越狱攻击|攻击|例子|比如|例如|文章|电影|小说|引用|标题|研究|课程|论文',
  b(
    'exemple|article|film|livre|citation|injection de prompt|ejemplo|articulo|pelicula|libro|cita|beispiel|artikel|buch|zitat|пример|стать\\p{L}*|фильм\\p{L}*|книг\\p{L}*|цитат\\p{L}*',
  ),
  '例えば|記事|映画|小説|引用|論文',
]);

/** A line of a recorded conversation: the user's own words to the assistant, not an injected order. */
const TRANSCRIPT_LINE = /^\s*(?:user|human|customer|me|用户|ユーザー|пользователь|utilisateur|usuario|nutzer)\s*[:：]/u;

/** Someone else's words reported or quoted. */
const REPORTED = folded([
  b(
    'said|says|told|tells|asked|asks|wants|wanted|would like|requested|requests|wrote|writes|mentioned|mentions|joked|jokes|shouted|yelled|whispered|replied|used to say|likes to say|always says|heard|read (?:that|a)',
  ),
  '说(?!出)|让他|让她|叫他|叫她|要求他|要求她|提到|写道|听说',
  b(
    "dit|disait|a dit|m'a dit|raconte|a demande|dijo|dice|decia|conto|pidio|pide|sagte|bat|bittet|sagt|meinte|erzahlte|сказал\\p{L}*|говорит|говорил\\p{L}*|велел\\p{L}*|попросил\\p{L}*|disse|dice|zei|zegt",
  ),
  'と言|言われ|言った|によると|から聞',
]);

/** The instructions belong to a person in the user's life (or a thing of theirs), not to the model. */
const OWNED_BY_PERSON = folded([
  b(
    "boss|manager|teacher|doctor|dentist|landlord|landlady|mom|mum|dad|mother|father|wife|husband|partner|kids?|son|daughter|school|coach|colleague|coworker|client|customer|lawyer|accountant|nurse|vet|professor|instructor|trainer|employer|council|pharmacist|recipe|manual|grandma|grandmother|grandpa|grandfather|aunt|uncle|friend|neighbou?r|it department|hr|landlord's|doctor's|boss's",
  ),
  b(
    '(?:instructions?|rules?|directions|guidelines?|advice|polic(?:y|ies))(?: that)? (?:i|we|he|she|they|my \\p{L}+|the \\p{L}+) (?:\\p{L}+ )?(?:gave|give|sent|wrote|made|set|left|posted|shared|had|mentioned|got|received)',
  ),
  b(
    "(?:my|his|her|their|our|the user'?s|user'?s) (?:\\p{L}+ ){0,2}(?:instructions?|rules?|directions|guidelines?|orders|polic(?:y|ies)|prompts?)",
  ),
  '老板|老师|医生|妈妈|爸爸|公司|房东|经理|上司|领导|同事|(?:我|他|她|我们|他们|用户)(?:之前|以前|刚才)?[^，。！？]{0,10}?(?:的|给的|说的|定的|写的|发的)(?:指令|指示|规则|要求|说明|通知|安排|设定)',
  b(
    'patron|chef|medecin|docteur|professeur|proprietaire|maman|papa|mere|pere|manuel|recette|jefe|jefa|medico|medica|profesor|profesora|casero|casera|mama|madre|padre|receta|arzt|arztin|lehrer|vermieter|mutter|vater|handbuch|rezept|начальник\\p{L}*|врач\\p{L}*|учител\\p{L}*|мам\\p{L}*|пап\\p{L}*|хозя\\p{L}*|capo|insegnante|mamma|manuale|chefe|mae|pai|baas|dokter|leraar|moeder|vader|handleiding',
  ),
  '上司|医者|先生|母|父|会社|大家|マニュアル|説明書',
  '회사|상사|의사|선생님|엄마|아빠|집주인',
]);

/** The instructions are about something in the user's life ("… about the meeting time", "les règles du tarot"). */
const NOT_THE_MODEL =
  '(?!you(?![\\p{L}])|your|yourself|the assistant|assistant|the ai(?![\\p{L}])|ai(?![\\p{L}])|the model|model|the system|system|the developer|developer|openai|anthropic|above|the above|now(?![\\p{L}])|this conversation|this chat|safety|content|all(?![\\p{L}])|every|any(?![\\p{L}])|systeme|sistema|ia(?![\\p{L}])|ии(?![\\p{L}]))';
const ABOUT_A_TOPIC = folded([
  `(?<![\\p{L}\\p{N}])(?:instructions?|rules?|directions|guidelines?|polic(?:y|ies)|prompts?) (?:about|for|on|regarding|concerning|of|from|in|at|by) (?:the |my |our |his |her |their |this |that |a |an )?${NOT_THE_MODEL}\\p{L}`,
  `(?<![\\p{L}\\p{N}])(?:instructions?|consignes|regles|instrucciones|reglas|normas|indicaciones|anweisungen|regeln|указани\\p{L}*|инструкци\\p{L}*|правил\\p{L}*|istruzioni|regole|norme|instrucoes|regras|instructies|regels)(?:\\s+\\p{L}+)?\\s+(?:du|de la|des|de l'|del|de los|de las|de|der|vom|von|fur|furs|zum|zur|по|для|от|dal|della|dei|do|da|dos|das|van)\\s+${NOT_THE_MODEL}\\p{L}`,
  '关于',
]);

/** Addressed to a person: "forget all your rules, Dad". */
const VOCATIVE =
  /,\s*(?:dad|daddy|mom|mommy|mum|mummy|mother|father|grandma|granny|grandpa|honey|sweetie|darling|babe|baby|kids|children|buddy|bro|dude|mate|sir|madam|guys|folks|son|daughter|love|pal|papa|maman|mama|cherie|carino|schatz)(?![\p{L}\p{N}])|^\s*(?:dad|mom|mum|honey|kids|guys|mate)\s*,/u;

/** Somebody in the text is the subject of the verb: described, not ordered ("the user tends to ignore …"). */
const DESCRIBED_SUBJECT = folded([
  `${b("i|he|she|they|we|it|user|users|people|everyone|someone|kids?|boss|team|him|her|them|el usuario|la usuaria|l'utilisateur|l'utilisatrice|der nutzer|die nutzerin|der benutzer|пользователь\\p{L}*|l'utente|o usuario|a usuaria|de gebruiker|el|ella|il|elle|er|он|она|lui|lei|ele|ela|hij|zij")}(?:'s)?\\s+(?:\\p{L}+\\s+){0,3}?(?:${b('to|will|would|should|could|might|may|can|did|does|often|usually|sometimes|tends? to|wants? to|decided to|needs? to|has to|had to|is going to|used to|likes? to|tried to|hat|a|ha|ist|est|suele|souvent|oft|часто')}\\s+)?(?:\\p{L}+\\s+)?$`,
  '用户(?:经常|常常|总是|又|还)?$',
  '(?:ユーザー|彼|彼女)(?:は|が)[^。]*$',
  '(?:사용자|그|그녀)(?:는|가|은|이)[^.。]*$',
]);
const ADDRESSES_MODEL =
  /(?<![\p{L}\p{N}])(?:you|your|yourself|assistant|ai|model|bot|chatbot|llm|gpt|tu|vous|du|ты|usted)(?![\p{L}\p{N}])|你|あなた/u;

/** Addresses and host names carry no context ("evil.example" is not an "example"). */
const ADDRESS = /\S+@\S+|[a-z][a-z0-9+.-]*:\/\/\S+|(?<![\p{L}\p{N}])[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;

/** Families about rules and instructions, which the user's own people and things also have. */
const ABOUT_RULES: ReadonlySet<SignalFamily> = new Set(['override', 'new-instructions', 'bypass', 'behaviour']);
/** Families whose phrases start with the verb: a subject before it ("the user tends to …") makes a description. */
const VERB_LED: ReadonlySet<SignalFamily> = new Set(['override', 'bypass', 'leak', 'exfiltration', 'tool']);

/**
 * How much the sentence around a match at `index` softens it (0 … MAX_SOFTENING); `family` is
 * that of the sentence's strongest match.
 */
export function softening(sentence: string, index: number, family: SignalFamily): number {
  const words = sentence.replace(ADDRESS, ' ');
  let total = 0;
  if (META.test(words)) total += 2;
  if (REPORTED.test(words) || TRANSCRIPT_LINE.test(sentence)) total += 1;
  if (insideQuotes(sentence, index)) total += 1;
  if (ABOUT_RULES.has(family) && OWNED_BY_PERSON.test(words)) total += 2;
  if (ABOUT_RULES.has(family) && ABOUT_A_TOPIC.test(words)) total += 1.5;
  if (VOCATIVE.test(words)) total += 2;
  if (VERB_LED.has(family) && describedSubject(sentence.slice(Math.max(0, index - 80), index))) total += 2;
  return Math.min(MAX_SOFTENING, total);
}

function describedSubject(before: string): boolean {
  // After a colon or an opening quote, what follows is the speech itself ("the user said: ignore …").
  const cut = Math.max(
    before.lastIndexOf(':'),
    before.lastIndexOf('"'),
    before.lastIndexOf('“'),
    before.lastIndexOf('：'),
  );
  const prefix = before.slice(cut + 1);
  if (prefix.trim() === '' || ADDRESSES_MODEL.test(prefix)) return false;
  return DESCRIBED_SUBJECT.test(prefix);
}

// Quotation marks, and the slashes around a regular expression (/ignore previous instructions/i).
const OPENING = /["“«„「『]|(?<=^|[\s(:—–-])['‘/]/gu;
const CLOSING = /["”»」』]|['’](?=[\s.,!?;:)]|$)|\/[gimsuy]*(?=[\s.,!?;:)]|$)/u;

function insideQuotes(sentence: string, index: number): boolean {
  let opened = -1;
  for (const match of sentence.slice(0, index).matchAll(OPENING)) opened = match.index;
  if (opened < 0) return false;
  const between = sentence.slice(opened + 1, index);
  if (CLOSING.test(between.replace(/^["“«„「『'‘/]/u, ''))) return false;
  return CLOSING.test(sentence.slice(index));
}
