import type { SearchHit, Turn } from '@hindsight/memory-model';
import type { ChatMessage } from './ports.ts';

export interface PromptParts {
  profile: string;
  /** The memories retrieved for this message, one dated line each (`memoryLines`). */
  memories: string;
  recent: readonly Turn[];
  message: string;
}

const RULES = [
  'You are a helpful assistant with a long-term memory of this user, kept by the hindsight memory service.',
  'Memories are written about the user in the third person ("The user is allergic to peanuts"); speak to the user as "you".',
  'Answer questions about the user from the memories below or from memory_search results, in natural words, saying when ' +
    'they told you if it helps ("On 3 March you told me …"). If none of them answers the question, say plainly that you ' +
    "don't know — never invent a fact, and never treat a question as new information.",
  'Never suggest something that conflicts with an allergy, diet or dislike you know of, and say which memory you relied on.',
  'When the user tells you something, acknowledge what you understood; when they correct something said before, confirm the correction.',
  'If the answer may depend on something from an earlier conversation that is not below, call memory_search.',
  'When the user states a lasting fact, preference or decision, or asks you to remember something, call memory_write ' +
    '(memory_type "preference" or "fact"). Call memory_forget only when the user asks you to forget something.',
  "Follow the user's standing preferences (answer length, the language to answer in); otherwise answer in the user's " +
    'language, briefly.',
].join('\n');

/** Memories as the model reads them: "- [2026-03-03] fact: The user is allergic to peanuts". */
export function memoryLines(memories: readonly SearchHit[]): string {
  return memories
    .map((m) => `- [${m.occurred_at.slice(0, 10)}] ${m.category}: ${m.content.replace(/\s+/g, ' ').trim()}`)
    .join('\n');
}

/** The messages for one model turn: rules + profile + memories, the session so far, the new message. */
export function buildMessages(parts: PromptParts): ChatMessage[] {
  const sections = [RULES];
  if (parts.profile) sections.push(`## About the user\n${parts.profile}`);
  if (parts.memories) sections.push(`## Memories relevant to this message\n${parts.memories}`);
  const messages: ChatMessage[] = [{ role: 'system', content: sections.join('\n\n') }];
  for (const turn of parts.recent) {
    if (turn.role === 'user' || turn.role === 'assistant') messages.push({ role: turn.role, content: turn.content });
  }
  messages.push({ role: 'user', content: parts.message });
  return messages;
}

/** The prompt asking the model to make a vague message standalone before memory is searched. */
export function rewriteMessages(message: string, recent: readonly Turn[]): ChatMessage[] {
  const transcript = recent
    .filter((t) => t.role === 'user' || t.role === 'assistant')
    .map((t) => `${t.role}: ${t.content}`)
    .join('\n');
  return [
    {
      role: 'system',
      content:
        "Rewrite the user's last message as one standalone search query for their memory store, resolving references " +
        'such as "that thing", "last time" or "上次那个" from the conversation. Keep the user\'s language. Answer with the query only.',
    },
    { role: 'user', content: `${transcript ? `Conversation so far:\n${transcript}\n\n` : ''}Last message: ${message}` },
  ];
}
