import type { SearchHit } from '@hindsight/memory-model';
import { selectAnswers } from './answer-selection.ts';
import { type Language, languageOf } from './language.ts';
import type { WriteOutcome } from './memory-calls.ts';
import { CORRECTION_LEAD, LEAD_IN } from './message-kind.ts';
import { joinEnglish } from './recommendation.ts';
import { asClause, capitalise, memoryForUser, swapPerson } from './second-person.ts';

/**
 * The replies the agent gives without a model. Same message and memories → same reply.
 * Questions are answered from the memories that answer them (or "I don't know"), statements
 * and corrections are acknowledged with what was understood, instructions are confirmed.
 */
export interface OfflineAnswer {
  reply: string;
  /** The memories the reply relied on. */
  used: SearchHit[];
}

export interface ReplyStyle {
  language: Language;
  /** The user asked for short answers. */
  short: boolean;
  now: Date;
}

/** Memories told back for one question; one when the user wants short answers. */
const MAX_ANSWERS = 3;
const MAX_OVERVIEW = 5;

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** When a memory was told, if not today: "3 March" ("3 March 2025" in another year); "3月3日" in Chinese. */
export function toldOn(memory: SearchHit, style: ReplyStyle): string | undefined {
  const at = new Date(memory.occurred_at);
  if (Number.isNaN(at.getTime())) return undefined;
  const now = style.now;
  const sameDay =
    at.getUTCFullYear() === now.getUTCFullYear() &&
    at.getUTCMonth() === now.getUTCMonth() &&
    at.getUTCDate() === now.getUTCDate();
  if (sameDay || at.getTime() > now.getTime()) return undefined;
  const otherYear = at.getUTCFullYear() !== now.getUTCFullYear();
  if (style.language === 'zh') {
    return `${otherYear ? `${at.getUTCFullYear()}年` : ''}${at.getUTCMonth() + 1}月${at.getUTCDate()}日`;
  }
  return `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]}${otherYear ? ` ${at.getUTCFullYear()}` : ''}`;
}

/** "On 3 March you told me you're allergic to peanuts." — memories grouped by the day they were told. */
function toldBack(memories: readonly SearchHit[], style: ReplyStyle): string {
  const groups: Array<{ day: string | undefined; clauses: string[] }> = [];
  for (const memory of memories) {
    const day = toldOn(memory, style);
    const clause = asClause(memoryForUser(memory));
    const last = groups[groups.length - 1];
    if (last && last.day === day) last.clauses.push(clause);
    else groups.push({ day, clauses: [clause] });
  }
  if (style.language === 'zh') {
    return groups
      .map((g) => {
        const told = g.clauses.join('；');
        return `${g.day ? `你在${g.day}` : '你'}跟我说过：${told}${languageOf(told.slice(-1)) === 'zh' ? '。' : '.'}`;
      })
      .join('');
  }
  return groups
    .map((g) => {
      const [first, ...rest] = g.clauses;
      const last = rest.pop();
      const middle = rest.map((c) => `, that ${c}`).join('');
      const tail = last === undefined ? '' : `${middle}, and that ${last}`;
      return `${g.day ? `On ${g.day} you` : 'You'} told me ${first}${tail}.`;
    })
    .join(' ');
}

export function answerQuestion(question: string, memories: readonly SearchHit[], style: ReplyStyle): OfflineAnswer {
  const limit = style.short ? 1 : MAX_ANSWERS;
  const selection = selectAnswers(question, memories, MAX_OVERVIEW);
  const used = selection.answers.slice(0, selection.open ? (style.short ? 2 : MAX_OVERVIEW) : limit);
  if (used.length === 0) {
    return {
      reply:
        style.language === 'zh'
          ? '我不知道——你还没跟我说过这件事。'
          : "I don't know — you haven't told me about that yet.",
      used,
    };
  }
  const first = memoryForUser(used[0] as SearchHit);
  // A short answer is the memory itself, when it is in the reply's language; else it is quoted as told.
  if (style.short && !selection.open && languageOf(first) === style.language) {
    return { reply: style.language === 'zh' ? `${first}。` : `${capitalise(first)}.`, used: used.slice(0, 1) };
  }
  if (selection.open) {
    const clauses = used.map((m) => asClause(memoryForUser(m)));
    return {
      reply:
        style.language === 'zh'
          ? `你跟我说过的：${clauses.join('；')}。`
          : `Here's what you've told me: ${clauses.join('; ')}.`,
      used,
    };
  }
  return { reply: toldBack(used, style), used };
}

/** The point of a message: without its greeting or filler and its final stop. */
function pointOf(message: string, leading?: RegExp): string {
  let text = message.trim().replace(LEAD_IN, '');
  if (leading) text = text.replace(leading, '');
  return text.replace(/[\s.。!！]+$/u, '').trim();
}

/** "My daughter is called Mia and she is seven." → "Noted: your daughter is called Mia and she is seven." */
export function acknowledgeStatement(message: string, style: ReplyStyle): string {
  const point = swapPerson(pointOf(message));
  if (style.language === 'zh') return point ? `好的，记下了：${point}。` : '好的，记下了。';
  return point ? `Noted: ${asClause(point)}.` : 'Noted.';
}

/**
 * "Actually it's Lisbon, not Berlin." → "Thanks for the correction — noted: you live in Lisbon, not Berlin."
 * when the memory it corrects was rewritten (`corrected`, in the second person), else with the user's words.
 */
export function confirmCorrection(
  message: string,
  style: ReplyStyle,
  corrected?: { clause: string; wrong: string },
): string {
  const point = corrected
    ? `${corrected.clause}${style.language === 'zh' ? '，不是' : ', not '}${corrected.wrong}`
    : swapPerson(pointOf(message, CORRECTION_LEAD));
  if (style.language === 'zh') return `谢谢指正，已更正：${point}。`;
  return `Thanks for the correction — noted: ${asClause(point)}.`;
}

const INSTRUCTION_LEAD_EN =
  /^(?:(?:can|could|would|will) you\s+)?(?:please\s+|pls\s+|kindly\s+)?(?:from now on,?\s+|going forward,?\s+)?/i;
const INSTRUCTION_LEAD_ZH = /^(?:请(?!问)|麻烦)?你?(?:以后|今后|从现在起|从现在开始)?[，,]?(?:请)?你?/;
const IMPERATIVE =
  /^(?:always|never|keep|answer|reply|respond|speak|talk|write|call|use|be|stop|avoid|address|give|switch|remind|say|try)\b/i;

/** "Please keep your answers short." → "Sure — from now on I'll keep my answers short." */
export function confirmInstruction(message: string, style: ReplyStyle): string {
  if (style.language === 'zh' && /\p{Script=Han}/u.test(message)) {
    const point = swapPerson(pointOf(message).replace(INSTRUCTION_LEAD_ZH, ''));
    const negative = /^(?:不要|别)(.*)$/.exec(point);
    return negative ? `好的，以后我不会再${negative[1]}。` : `好的，以后我会${point}。`;
  }
  const point = swapPerson(
    pointOf(message)
      .replace(/[?？]$/, '')
      .replace(INSTRUCTION_LEAD_EN, ''),
  );
  const negative = /^(?:don'?t|do not)\s+(.*)$/i.exec(point);
  if (style.language === 'zh') return `好的，以后我会照做：${point}。`;
  if (negative) return `Sure — from now on I won't ${negative[1]}.`;
  if (IMPERATIVE.test(point)) return `Sure — from now on I'll ${asClause(point)}.`;
  return `Understood — I'll keep that in mind: ${asClause(point)}.`;
}

export function socialReply(social: 'greeting' | 'thanks' | 'farewell' | 'about-assistant', style: ReplyStyle): string {
  if (style.language === 'zh') {
    return {
      greeting: '你好！有什么可以帮你的？',
      thanks: '不客气！',
      farewell: '再见，你说的我都记着。',
      'about-assistant': '我是一个有记忆的助手：你可以告诉我你的事，问我你以前说过什么，或者让我给你推荐点什么。',
    }[social];
  }
  return {
    greeting: 'Hi! What can I do for you?',
    thanks: "You're welcome!",
    farewell: "Bye for now — I'll remember what you told me.",
    'about-assistant':
      "I'm an assistant with a memory: tell me about yourself, ask me what you told me before, or ask me for a suggestion.",
  }[social];
}

/** A request that is not about food: what is known that bears on it, or an honest "tell me more". */
export function recommendFromMemory(message: string, memories: readonly SearchHit[], style: ReplyStyle): OfflineAnswer {
  const used = selectAnswers(message, memories, style.short ? 1 : 2).answers;
  const clauses = used.map((m) => asClause(memoryForUser(m)));
  if (style.language === 'zh') {
    return {
      reply:
        clauses.length > 0
          ? `你跟我说过${clauses.join('，')}。照这个方向，你再说说具体想要什么，我帮你挑。`
          : '这方面我还不了解你的喜好。告诉我你喜欢什么，我会记住，下次推荐得更准。',
      used,
    };
  }
  return {
    reply:
      clauses.length > 0
        ? `Keeping in mind that you told me ${joinEnglish(clauses)}: tell me a little more about what you're after and I'll narrow it down.`
        : "I don't know your tastes there yet. Tell me what you like and I'll remember it for next time.",
    used,
  };
}

export function rememberReply(language: Language, fact: string, outcome: WriteOutcome): string {
  if (!outcome.ok) {
    return language === 'zh'
      ? `这条我没法存下来：${outcome.message}`
      : `I couldn't store that as a memory: ${outcome.message}`;
  }
  if (outcome.result.status === 'duplicate') {
    return language === 'zh' ? `这个我已经记得了：${fact}。` : `I already knew that: ${fact}.`;
  }
  return language === 'zh' ? `好的，我记住了：${fact}。` : `Got it, I'll remember: ${fact}.`;
}
