import { isChitChat } from '../small-talk.ts';
import { type Finding, mention, personFor, type SessionContext, sentence, slug } from './finding.ts';
import { segmentChinese, type ZhWord } from './nlp.ts';

const RELATIONS_ZH =
  '老婆|老公|妻子|丈夫|爱人|老伴|儿子|女儿|孩子|宝宝|妈妈|爸爸|母亲|父亲|爷爷|奶奶|外公|外婆|姥姥|姥爷|哥哥|姐姐|弟弟|妹妹|男朋友|女朋友|未婚妻|未婚夫|朋友|同事|室友|老板|领导|导师|老师|医生|康复师|教练|联合创始人|合伙人|猫|狗|小狗|小猫|妈|爸';

const TRANSIENT_ZH = /累了|好累|困了|饿了|在开会|在路上|在忙|辛苦|哈哈|嘿嘿/u;

const CONDITIONS_ZH =
  /(二型糖尿病|一型糖尿病|糖尿病|高血压|血压(?:有点)?高|哮喘|心脏病|乳糖不耐受|偏头痛|抑郁|焦虑|失眠|关节炎|痛风|高原反应|过敏性鼻炎|腰不好|腰疼|腿脚不方便|半月板[^，。]*|骨折|撕裂|扭伤|做了手术|阿尔茨海默)/u;

/** Resolves 下个月 / 下周三 / 明天 / 明年 against the conversation day: " (下个月：2026年4月)". */
export function chineseDateNote(text: string, now: string): string {
  const today = new Date(now);
  const y = today.getUTCFullYear();
  const m = today.getUTCMonth();
  const notes: string[] = [];
  const fmtMonth = (year: number, month: number) => `${year + Math.floor(month / 12)}年${(month % 12) + 1}月`;
  const fmtDay = (d: Date) => `${d.getUTCFullYear()}年${d.getUTCMonth() + 1}月${d.getUTCDate()}日`;
  const addDays = (n: number) => new Date(today.getTime() + n * 86_400_000);
  if (/下个月|下月/u.test(text)) notes.push(`下个月：${fmtMonth(y, m + 1)}`);
  if (/这个月底|月底/u.test(text)) notes.push(`月底：${fmtMonth(y, m)}底`);
  if (/明年/u.test(text)) notes.push(`明年：${y + 1}年`);
  if (/明天/u.test(text)) notes.push(`明天：${fmtDay(addDays(1))}`);
  if (/后天/u.test(text)) notes.push(`后天：${fmtDay(addDays(2))}`);
  const week = /下(?:个)?(?:周|星期|礼拜)([一二三四五六日天])?/u.exec(text);
  if (week) {
    const names = '一二三四五六日';
    const monday = addDays(((8 - today.getUTCDay()) % 7 || 7) - 0);
    const offset = week[1] ? (week[1] === '天' ? 6 : names.indexOf(week[1])) : 0;
    const start = new Date(monday.getTime() + offset * 86_400_000);
    notes.push(week[1] ? `${week[0]}：${fmtDay(start)}` : `下周：${fmtDay(start)}起的一周`);
  }
  return notes.length > 0 ? `（${notes.join('；')}）` : '';
}

function hasTime(words: readonly ZhWord[], text: string): boolean {
  return (
    words.some((w) => w.tag === 't') ||
    /(下个月|下月|下周|下星期|明年|明天|后天|月底|年底|五一|国庆|清明|春节|中秋|元旦|\d+月|[一二三四五六七八九十]+月|周[一二三四五六日]|星期[一二三四五六日天]|春天|夏天|秋天|冬天|下季度|明年春天)/u.test(
      text,
    )
  );
}

/** 我 → 用户, so a stored value reads as a fact about the user. */
function thirdPersonZh(text: string): string {
  return text
    .replace(/我们的/gu, '用户的')
    .replace(/我的/gu, '用户的')
    .replace(/我们/gu, '用户')
    .replace(/我/gu, '用户')
    .replace(/你/gu, '助手');
}

function clip(text: string): string {
  return [...text].length <= 120 ? text : `${[...text].slice(0, 119).join('')}…`;
}

function zhFinding(
  category: Finding['category'],
  key: string,
  answer: string,
  query: string,
  value: string,
  confidence = 0.8,
): Finding {
  return { category, key, answer, query, value: sentence(clip(value)), confidence };
}

/** Reads one user turn (Chinese): sentences, clauses, jieba-tagged words, against the frames below. */
export function chineseFindings(text: string, ctx: SessionContext): Finding[] {
  const findings: Finding[] = [];
  for (const raw of text.split(/[。！？!?；;\n]+/u)) {
    const sentenceText = raw.trim();
    if (
      sentenceText.length < 2 ||
      isChitChat(sentenceText) ||
      /[吗呢]$|^(?:什么|怎么|为什么|哪|谁|能不能|可不可以|是不是)/u.test(sentenceText)
    )
      continue;
    const clauses = sentenceText
      .split(/[，,、：:]+/u)
      .map((c) => c.trim())
      .filter(Boolean);
    const found = readSentence(sentenceText, clauses, ctx);
    findings.push(...found);
  }
  return findings;
}

/** An acknowledgement opening a sentence ("好主意，以后都按三个层次出题"): the rest is what is said. */
const LEAD_ZH = /^(?:好主意|好的|好吧|嗯+|哦+|对了|对|行|可以|另外|还有)[，,]\s*/u;

function readSentence(said: string, saidClauses: string[], ctx: SessionContext): Finding[] {
  const lead = LEAD_ZH.exec(said)?.[0];
  const text = lead ? said.slice(lead.length) : said;
  const clauses = lead ? saidClauses.slice(1) : saidClauses;
  if (text.length < 2) return [];
  const words = segmentChinese(text);
  const note = chineseDateNote(text, ctx.now);
  const out: Finding[] = [];
  const whole = thirdPersonZh(text);

  // Reminders and notes to self.
  const remind = /(?:请|记得)?(?:提醒我|帮我记一下|帮我记着|别让我忘了)[，,：:]?(.+)$/u.exec(text);
  if (remind) {
    const what = thirdPersonZh((remind[1] as string).trim());
    return [
      zhFinding(
        'commitment',
        `commitment.reminder.${slug(what)}`,
        what,
        '用户要求提醒什么事？',
        `用户要求提醒：${what}${note}`,
        0.85,
      ),
    ];
  }

  // Decisions and reversals (算了…还是…, 改成, 那就…吧, 决定), in whichever clause they are said.
  const decision = decisionZh(text, clauses, note);
  if (decision) return [decision];
  // Standing instructions: 请用中文, 以后…, 每套题都要…, 回答要简短.
  // "给我推荐的时候列个表格": how to answer whenever the assistant does that.
  const whenever = /(?:给我|跟我|对我|帮我)?(?:推荐|回答|解释|介绍|写)[^，。]{0,6}的时候/u.test(text);
  if (
    /^(?:请|以后|每次|每(?:套|道|个|篇|份)|回答|回复|答案|简历|汇报|代码|出题)/u.test(text) ||
    /(?:都要|一定要|必须|不要超过|尽量|请先不要|请附上|请用|请加)/u.test(text) ||
    whenever
  ) {
    if (
      (whenever || /以后|每|都|请用|请加|不要|尽量|简短|一页|中文|英文|先不/u.test(text)) &&
      !/帮我(?:写|出|做|改|挑|查|找)一/u.test(text)
    ) {
      const aspect = /中文|英文|语言/u.test(text)
        ? 'language'
        : /简短|一页|长度|字/u.test(text)
          ? 'length'
          : slug(text.replace(/^请/u, ''));
      out.push(
        zhFinding(
          'preference',
          `preference.${aspect}`,
          text,
          '用户希望助手怎样回答？',
          `用户希望助手：${thirdPersonZh(text.replace(/^请/u, ''))}`,
          0.85,
        ),
      );
      return out;
    }
  }

  // Allergies and health.
  const allergy = /(?:对|对于)?([^，。对我他她]{1,12}?)过敏/u.exec(text);
  if (allergy && /过敏/u.test(text)) {
    const thing = (allergy[1] as string).replace(/^(?:我|他|她|孩子|宝宝)/u, '');
    const owner = ownerZh(text, ctx);
    out.push(
      zhFinding(
        'fact',
        `${owner.key}.allergy.${slug(thing)}`,
        thing,
        owner.isUser ? '用户对什么过敏？' : `${owner.name}对什么过敏？`,
        `${owner.subject}对${thing}过敏，推荐食物或用品时必须避开${thing}${clauses.length > 1 ? `（${thirdPersonZh(text)}）` : ''}`,
        0.9,
      ),
    );
    return out;
  }
  const ill = ILL_AFTER_ZH.exec(text) ?? MAKES_ILL_ZH.exec(text);
  if (ill) {
    const thing = ill[1] as string;
    const owner = /^[^，。]{0,8}?(?:他|她|它)/u.test(text)
      ? ownerZh(text.replace(/^[^他她它]*(?=[他她它])/u, ''), ctx)
      : ownerZh(text, ctx);
    out.push(
      zhFinding(
        'fact',
        `${owner.key}.allergy.${slug(thing)}`,
        thing,
        owner.isUser ? '用户吃什么会不舒服？' : `${owner.name}吃什么会不舒服？`,
        `${owner.subject}吃${thing}会${ill[2]}，推荐时必须避开${thing}${clauses.length > 1 ? `（${thirdPersonZh(text)}）` : ''}`,
        0.85,
      ),
    );
    return out;
  }
  const condition = CONDITIONS_ZH.exec(text)?.[1];
  if (condition) {
    const owner = ownerZh(text, ctx);
    out.push(
      zhFinding(
        'fact',
        `${owner.key}.health.${slug(condition)}`,
        condition,
        owner.isUser ? '用户有什么健康问题？' : `${owner.name}有什么健康问题？`,
        `${whole}${note}`,
        0.85,
      ),
    );
    return out;
  }

  const refuses = /(?:不考虑|不去|不上了|就不|不要|不用|不想)([^，。！？]{1,16})/u.exec(text);
  if (refuses && /^我|^我们|不上了|就不/u.test(text) && !/请|给我/u.test(text)) {
    out.push(
      zhFinding(
        'decision',
        `decision.not_${slug(refuses[1] as string)}`,
        'no',
        '用户决定不做什么？',
        `${whole}${note}`,
        0.8,
      ),
    );
    return out;
  }

  // Budgets and amounts spent.
  if (
    /预算|以内|不超过|最多|年薪|月薪|房租|每晚|每月|每个月|花/u.test(text) &&
    words.some((w) => w.tag === 'm' || /[一二三四五六七八九十百千万两]+|\d/u.test(w.word)) &&
    /[元块万千百]|预算|月薪|年薪/u.test(text)
  ) {
    out.push(
      zhFinding(
        'fact',
        `constraint.budget.${slug(text.slice(0, 6))}`,
        text,
        '用户的预算或价格要求是多少？',
        `${whole.startsWith('用户') ? '' : '用户提到'}${whole}${note}`,
        0.85,
      ),
    );
    return out;
  }

  // People and pets: 我有一只猫，叫豆豆 / 我老婆小美 / 我朋友阿杰不吃牛肉.
  const pet = /我(?:家)?有(?:一只|一条|只|条)?(猫|狗|小猫|小狗)[，,]?(?:叫|名字叫)([^，。！？]{1,6})/u.exec(text);
  const relation = new RegExp(`(?:我|我的)(${RELATIONS_ZH})(?:叫)?([^，。！？的也都不很是有要]{0,4})`, 'u').exec(text);
  if (pet) {
    const person = { name: pet[2] as string, relation: pet[1] as string };
    ctx.people.set(person.name, person);
    mention(ctx, person);
    out.push(
      zhFinding(
        'fact',
        `person.${slug(person.name)}`,
        `${person.relation}：${person.name}`,
        `用户的${person.relation}叫什么？`,
        `${whole}${note}`,
        0.85,
      ),
    );
    return out;
  }
  if (relation) {
    const rel = relation[1] as string;
    const named = (relation[2] as string).trim();
    const name = words.some((w) => w.word === named && /^(nr|nz|n|x)$/.test(w.tag)) && named.length >= 2 ? named : '';
    const person = { name: name || `用户的${rel}`, relation: rel };
    if (name) ctx.people.set(name, person);
    mention(
      ctx,
      person,
      /^(?:老婆|妻子|妈妈|母亲|奶奶|外婆|姥姥|姐姐|妹妹|女儿|女朋友|未婚妻)$/u.test(rel)
        ? 'she'
        : /^(?:老公|丈夫|爸爸|父亲|爷爷|外公|姥爷|哥哥|弟弟|儿子|男朋友|未婚夫)$/u.test(rel)
          ? 'he'
          : undefined,
    );
    out.push(
      zhFinding(
        'fact',
        `person.${slug(name || rel)}.${slug(text.slice(0, 10))}`,
        `${rel}${name}`,
        `用户的${rel}${name ? `${name}` : ''}怎么样？`,
        `${whole}${note}`,
        0.8,
      ),
    );
    return out;
  }

  // Organisation: 我们公司叫云帆科技, 做…, 现在有三百家付费餐厅.
  const org = /我们(?:的)?(公司|团队|工作室|店|学校|诊所|项目)(?:叫|名叫|名字叫)([^，。！？]{1,12})/u.exec(text);
  if (org) {
    ctx.people.set('__org', { name: org[2] as string, relation: org[1] as string });
    out.push(zhFinding('fact', 'org.name', org[2] as string, `用户的${org[1]}叫什么？`, `${whole}${note}`, 0.9));
    return out;
  }

  // Preferences.
  const pref =
    /(?:我|我们)(?:很|最|特别|比较|更|真的|也)?(喜欢|爱吃|爱喝|爱|讨厌|不喜欢|受不了|不爱|偏爱|更喜欢)([^，。！？]{1,20})/u.exec(
      text,
    );
  if (pref) {
    const negative = /讨厌|不喜欢|受不了|不爱/u.test(pref[1] as string);
    out.push(
      zhFinding(
        'preference',
        `user.${negative ? 'dislikes' : 'likes'}.${slug(pref[2] as string)}`,
        pref[2] as string,
        negative ? '用户不喜欢什么？' : '用户喜欢什么？',
        `${whole}${note}`,
        0.8,
      ),
    );
    return out;
  }

  // Diet: 我不吃猪肉, 我们不吃辣, 我吃素.
  const diet = /(?:我|我们)(?:不吃|不能吃|不喝|吃素|是素食)/u.exec(text);
  if (diet) {
    out.push(zhFinding('fact', `user.diet.${slug(text)}`, text, '用户有什么饮食禁忌？', `${whole}${note}`, 0.85));
    return out;
  }

  // Someone the user named earlier (阿杰不吃牛肉), or the last one spoken of.
  const known = [...ctx.people.values()].find((p) => p.name !== '' && text.startsWith(p.name.replace(/^用户的/u, '')));
  if (known && !known.name.startsWith('用户')) {
    out.push(
      zhFinding(
        'fact',
        `person.${slug(known.name)}.${slug(text)}`,
        text,
        `${known.name}怎么样？`,
        `${known.name}（用户的${known.relation}）${text.slice(known.name.length)}${note}`,
        0.8,
      ),
    );
    return out;
  }

  // Anything else the user states about themselves with content words: a fact, with its date resolved.
  const firstPerson =
    /^(?:我|我们|我的|医生说我|康复师说)/u.test(text) ||
    /^(?:新公司|新家|新房子|公司|房子|家里|这个服务|服务|汇报)/u.test(text) ||
    (/^(?:下周|下个月|明年|五一|国庆|清明|医生说|康复师说)/u.test(text) && hasTime(words, text));
  if (TRANSIENT_ZH.test(text) || /^(?:好的|可以|行|对|嗯|是的|没错|不是|谢谢)/u.test(text)) return out;
  // Work asked of the assistant ("帮我出一套…", "换一道简单点的"), and reports of what was just done ("查了", "加了").
  if (REQUEST_ZH.test(text) || /^[\u4e00-\u9fff]{1,2}了[，,]/u.test(text)) return out;
  if (!firstPerson) return statedZh(text, words, note, ctx);
  if (/^我(?:想|要|需要)?(?:帮|请你|让你|问)/u.test(text) || /帮我(?:写|出|做|改|挑|查|找|规划)/u.test(text))
    return out;
  const content = words.filter((w) => /^(n|nr|ns|nt|nz|m|t|eng|vn|a)/.test(w.tag) && w.word.length >= 1);
  if (content.length === 0) return out;
  const moving = /搬家|搬到/u.test(text);
  out.push(
    zhFinding(
      'fact',
      moving
        ? 'plan.move'
        : `user.${slug(
            content
              .map((w) => w.word)
              .join('')
              .slice(0, 8),
          )}`,
      text,
      moving
        ? '用户要搬到哪里、什么时候搬？'
        : // A question of its own per topic: two plans never answer "the same question" (the write path
          // would take one for an update of the other).
          hasTime(words, text)
          ? `关于${content.find((w) => !/^(?:m|t)$/.test(w.tag))?.word ?? content[0]?.word ?? ''}，用户有什么计划？什么时候？`
          : `关于用户的${content[0]?.word ?? ''}，用户说了什么？`,
      `${whole}${note}`,
      0.7,
    ),
  );
  return out;
}

const REVERSAL_ZH = /算了|不对|还是|改成|改为|换成|改去|改用|其实/u;
const DECIDED_ZH =
  /(?:决定|那就|就|还是|改成|改为|换成|改去|改用|选)(?:用|去|买|送|做|订)?([^，。！？]{1,20}?)(?:吧|了)?$/u;

/**
 * A decision (决定…, 那就…吧, 改成…) or its reversal (算了，还是换成牧场直供吧), in whichever clause it
 * is said. A reversal keeps what comes from its cue on ("还是换成兔肉粮吧，从九月开始"), without what
 * it takes back: the clauses before the cue name the replaced option (`replaces`), and a later
 * clause about that option ("白鹭太贵了") is its reason, not the decision.
 */
function decisionZh(text: string, clauses: readonly string[], note: string): Finding | undefined {
  // "本来想报线下班，算了，不报班了": taking a plan back is a decision not to.
  const cueAt = clauses.findIndex((c) => /算了|不对/u.test(c));
  const declined =
    cueAt > 0
      ? clauses
          .slice(cueAt)
          .map((c) => c.replace(/^(?:不过|但是|可是)?(?:算了|不对)[，,]?/u, ''))
          .find((c) => /^(?:还是|就|先)?不[^，。！？]{1,8}了$/u.test(c))
      : undefined;
  if (declined) {
    const { replaced, topic } = takenBack(clauses.slice(0, cueAt).join('，'), '');
    return {
      category: 'decision',
      key: `decision.not_${slug(replaced.join('') || declined)}`,
      answer: 'no',
      query: `用户对${topic || replaced[0] || declined}做了什么决定？`,
      value: sentence(`用户决定${thirdPersonZh(declined)}${note}`),
      confidence: 0.8,
      reverses: true,
      ...(replaced.length > 0 ? { replaces: replaced.join('') } : {}),
    };
  }
  if (!/吧$|吧[，,]|决定|改|换|还是/u.test(text) || /吗$/u.test(text)) return undefined;
  let at = -1;
  let decided: RegExpExecArray | null = null;
  for (let i = clauses.length - 1; i >= 0 && !decided; i--) {
    decided = DECIDED_ZH.exec(clauses[i] as string);
    if (decided) at = i;
  }
  if (!decided) {
    decided = /我们?决定(?:了)?([^。！？]{2,30})/u.exec(text);
    at = 0;
  }
  if (!decided) return undefined;
  const object = (decided[1] as string).replace(/^(?:用|去|买|送|做)/u, '').trim();
  if (object.length < 1) return undefined;
  const cue = clauses.findIndex((c, i) => i <= at && REVERSAL_ZH.test(c));
  const reverses = cue >= 0;
  const { replaced, topic } = takenBack(reverses ? clauses.slice(0, cue).join('，') : '', object);
  const kept = (reverses ? clauses.slice(cue) : clauses).filter(
    (c, i) =>
      !/^(?:不过|但是|可是)?(?:算了|不对|好主意)$/u.test(c) &&
      !(reverses && i > at - cue && replaced.some((w) => c.includes(w))),
  );
  const said = thirdPersonZh(kept.join('，').replace(/^(?:不过|但是|可是)?算了[，,]?/u, ''));
  const about = topic ? `（关于${topic}）` : '';
  return {
    category: 'decision',
    key: `decision.${slug(object)}`,
    answer: object,
    query: `用户对${topic || object.slice(0, 6)}做了什么决定？`,
    value: sentence(clip(`${/决定/u.test(said) ? about : `用户决定${about}：`}${said}${note}`)),
    confidence: 0.8,
    ...(reverses ? { reverses: true } : {}),
    ...(replaced.length > 0 ? { replaces: replaced.join('') } : {}),
  };
}

/**
 * What the words before a reversal's cue name: the option taken back (its names — "白鹭" — or, with
 * none, its nouns — "鸭肉") and the topic both options are about ("婚纱").
 */
function takenBack(before: string, object: string): { replaced: string[]; topic: string } {
  // "那家叫青禾的店": what is introduced by 叫 is a name, whatever jieba makes of it.
  const called = /叫([\p{Script=Han}A-Za-z0-9]{1,8}?)(?:的|$)/u.exec(before)?.[1];
  const nouns = segmentChinese(before).filter(
    (w) =>
      (/^(?:n|nr|nz|ns|nt|eng)$/.test(w.tag) || w.word === called) &&
      [...w.word].length >= 2 &&
      !object.includes(w.word),
  );
  const names = nouns.filter((w) => w.tag !== 'n' || w.word === called);
  const replaced = (names.length > 0 ? names : nouns).map((w) => w.word);
  const topic = names.length > 0 ? (nouns.find((w) => w.tag === 'n')?.word ?? '') : '';
  return { replaced, topic };
}

/** 它一吃鱼就拉肚子, 布洛芬我吃了胃不舒服: something that makes someone ill, however it is put. */
const BODY_ZH = '(?:胃|肚子|皮肤|身上|脸上|嗓子)';
const ILLNESS_ZH = '(拉肚子|吐|呕吐|过敏|不舒服|难受|起疹子|长疹子|痒|疼|胀气)';
const MAKES_ILL_ZH = new RegExp(
  `(?:一吃|一喝|吃了|喝了|用了|碰到|吃)(?!${BODY_ZH})([^，。！？就我他她它]{1,8}?)(?:以后|之后)?(?:就|会|都)?${BODY_ZH}?(?:就|会)?${ILLNESS_ZH}`,
  'u',
);
const ILL_AFTER_ZH = new RegExp(
  `^([^，。！？我他她它]{1,8}?)(?:我|他|她|它)(?:一)?(?:吃了|喝了|用了|吃|喝)(?:以后|之后)?(?:就|会)?${BODY_ZH}?(?:就|会)?${ILLNESS_ZH}`,
  'u',
);

const REQUEST_ZH =
  /帮我|给我|请你|你(?:能|可以|帮)|换一(?:道|个|份|题|下)|再(?:来|出|写|给)|重新(?:写|出|做)|先不用|不用了/u;

/**
 * What the user states about their world without naming themselves ("店里有三个员工，店长叫阿宁",
 * "啤酒我已经戒了", "它现在四点五公斤"): kept when it says something — a name, a number, two
 * content words — with "它/他/她" read as the one last spoken of.
 */
function statedZh(
  text: string,
  words: readonly { word: string; tag: string }[],
  note: string,
  ctx: SessionContext,
): Finding[] {
  const content = words.filter((w) => /^(n|nr|ns|nt|nz|m|eng|vn|t)/.test(w.tag) && w.word.length >= 2);
  const says = words.some((w) => /^(?:nr|m|eng|nz|ns)$/.test(w.tag)) || content.length >= 2;
  if (!says || [...text].length < 5 || /^(?:那|这|那个|这个)/u.test(text)) return [];
  const pronoun = /^(他|她|它)/u.exec(text)?.[1];
  const meant = pronoun ? personFor(ctx, pronoun) : undefined;
  // "他报价一千六" with no one to read "他" as: the figure is still worth the note.
  if (pronoun && !meant && !words.some((w) => w.tag === 'm')) return [];
  const said = meant ? `${meant.name}${thirdPersonZh(text.slice(1))}` : `用户提到，${thirdPersonZh(text)}`;
  const about = content.find((w) => !/^(?:m|t)$/.test(w.tag))?.word ?? content[0]?.word ?? '';
  return [
    zhFinding(
      'fact',
      `${meant ? `person.${slug(meant.name)}` : 'said'}.${slug(
        content
          .map((w) => w.word)
          .join('')
          .slice(0, 8),
      )}`,
      text,
      meant ? `${meant.name}怎么样？` : `关于${about}，用户说了什么？`,
      `${said}${note}`,
      0.65,
    ),
  ];
}

function ownerZh(text: string, ctx: SessionContext): { isUser: boolean; key: string; name: string; subject: string } {
  const rel = new RegExp(`^(?:我|我的|我们)(${RELATIONS_ZH})`, 'u').exec(text)?.[1];
  if (rel) return { isUser: false, key: `person.${slug(rel)}`, name: `用户的${rel}`, subject: `用户的${rel}` };
  const pronoun = /^(他|她|它)/u.exec(text)?.[1];
  const meant = pronoun ? personFor(ctx, pronoun) : undefined;
  if (meant) return { isUser: false, key: `person.${slug(meant.name)}`, name: meant.name, subject: meant.name };
  return { isUser: true, key: 'user', name: '用户', subject: '用户' };
}
