import { matchesOf, type SignalFamily } from './phrase.ts';

/**
 * Evidence in the shape of the text rather than its words: chat-template tokens, role lines,
 * tool-call JSON, and markup that makes a client fetch an outside URL when the memory is shown
 * (a markdown image is loaded without a click: the classic exfiltration channel).
 */
export interface StructuralEvidence {
  family: SignalFamily;
  weight: number;
}

const TEMPLATE_TOKEN =
  /<\|[a-z_]{2,30}\|>|\[\/?inst\]|<<\/?sys>>|<\/?(?:start|end)_of_turn>|<\|?(?:im_start|im_end|endoftext|eot_id|begin_of_text|start_header_id|end_header_id)\|?>/u;
/** A template token that opens a system or developer turn: `<|im_start|>system`, `<<SYS>>`. */
const TEMPLATE_SYSTEM_TURN =
  /(?:<\|?im_start\|?>|<\|start_header_id\|>|<start_of_turn>)\s*(?:system|developer)|<<sys>>/u;
const CHAT_JSON =
  /["']?role["']?\s*:\s*["'](?:system|developer|tool|function)["']|["'](?:tool_calls?|function_call|tool_use|tool_choice)["']\s*:/u;
const ROLE_LINE =
  /^[\s>#*\-[(<|]*(?:important |urgent |new |official )?(?:system|developer|sys|admin|administrator|root|operator|supervisor|openai|anthropic|system (?:message|prompt|notice|update|alert|override|instructions?|note)|系统(?:消息|通知|提示)?|システム|система|systeme|sistema)\s*[\])>|*]*\s*[:：](.*)$/gmu;
const DIRECTIVE_WORDS =
  /\b(?:you|your|must|always|never|ignore|from now on|do not|don'?t|obey|reveal|disable|enable|new|rules|instructions|mode|safety|assistant|forward|send|respond|reply|answer|jailbreak|restrictions|polic(?:y|ies)|revoked|disabled)\b|你|必须|助手|现在|忽略|泄露|あなた|ты|\btu\b|\bvous\b|\bdu\b/u;
const ROLE_TAG =
  /[[<{⟦【]\s*\/?\s*(?:system|sys|instructions?|admin|developer|inst|prompt|system_prompt|system-prompt|override|jailbreak|hidden|assistant_instructions)\s*[\]>}⟧】]/u;
const ROLE_HEADING = /^#{2,}\s*(?:system|instructions?|new instructions?|developer|admin|prompt|override|rules)\b/mu;
const PIPE_TO_SHELL = /(?:curl|wget|iwr|invoke-webrequest)\s[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b/u;
const DESTRUCTIVE_SHELL = /\brm\s+-rf\s+[/~*]/u;

const MD_IMAGE = /!\[[^\]\n]{0,300}\]\(\s*<?((?:https?:)?\/\/[^)\s>]+)/gu;
const MD_LINK = /(?<!!)\[([^\]\n]{1,300})\]\(\s*<?((?:https?:)?\/\/[^)\s>]*|javascript:[^)\s>]*)/giu;
const HTML_EMBED =
  /<\s*(img|image|iframe|script|object|embed|link|svg|video|audio|source|meta|frame|form|input|base)\b([^>]*)>?/giu;
const HANDLER = /\bon(?:error|load|click|mouseover|focus)\s*=|javascript:|data:text\/html/iu;
const BARE_URL = /\bhttps?:\/\/[^\s)>"'\]]+/gu;
/** A query that a model is meant to fill in: `{user}`, `$SESSION`, `[SUMMARY]`, `?q=` left empty, `?d=USER_DATA`. */
const PLACEHOLDER = /[{}$<>]|%7[bdBD]|\[[^\]]*\]|[?&][\w-]+=(?:&|$)|[?&][\w-]+=[A-Z][A-Z_]{2,}/u;
const DATA_QUERY =
  /[?&](?:data|d|q|c|m|p|s|u|log|msg|message|text|content|chat|conv|conversation|history|session|user|email|secret|token|key|password|pw|info|memory|cookie|ssn|card|summary)=/iu;
const PAYMENT_DESTINATION = /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){3,7}\b|\b(?:bc1[a-z0-9]{25,60}|0x[a-fA-F0-9]{40})\b/u;

/** `canonical` is the lower-case canonical view; `original` keeps case (URLs, placeholders). */
export function structuralEvidence(canonical: string, original: string): StructuralEvidence[] {
  const found: StructuralEvidence[] = [];
  if (TEMPLATE_TOKEN.test(canonical)) {
    found.push({ family: 'template', weight: TEMPLATE_SYSTEM_TURN.test(canonical) ? 4.5 : 3.5 });
  }
  if (CHAT_JSON.test(canonical)) found.push({ family: 'tool', weight: 4 });
  for (const line of matchesOf(ROLE_LINE, canonical)) {
    found.push({ family: 'role', weight: DIRECTIVE_WORDS.test(line[1] ?? '') ? 3.5 : 1.5 });
  }
  if (ROLE_TAG.test(canonical)) found.push({ family: 'role', weight: DIRECTIVE_WORDS.test(canonical) ? 3.5 : 2.5 });
  if (ROLE_HEADING.test(canonical)) found.push({ family: 'role', weight: 2 });
  if (PIPE_TO_SHELL.test(canonical)) found.push({ family: 'tool', weight: 3 });
  if (DESTRUCTIVE_SHELL.test(canonical)) found.push({ family: 'tool', weight: 1.5 });
  if (PAYMENT_DESTINATION.test(original)) found.push({ family: 'payment', weight: 0.5 });
  if (original.includes('](') || original.includes('<') || original.includes('://')) {
    found.push(...markupEvidence(original));
  }
  return found;
}

function markupEvidence(text: string): StructuralEvidence[] {
  const found: StructuralEvidence[] = [];
  for (const [, url = ''] of matchesOf(MD_IMAGE, text)) {
    found.push({ family: 'markup', weight: 2.5 + urlWeight(url) });
  }
  for (const [, label = '', url = ''] of matchesOf(MD_LINK, text)) {
    if (/^javascript:/i.test(url)) found.push({ family: 'markup', weight: 3.5 });
    else if (PLACEHOLDER.test(url)) found.push({ family: 'markup', weight: 3.5 });
    else if (deceptiveLabel(label, url)) found.push({ family: 'markup', weight: 2.5 });
    else found.push({ family: 'markup', weight: 0.5 });
  }
  for (const [, tag = '', attributes = ''] of matchesOf(HTML_EMBED, text)) {
    let weight = tag.toLowerCase() === 'script' ? 3.5 : 2.5;
    if (HANDLER.test(attributes)) weight += 2;
    const url = /(?:src|href|data|action)\s*=\s*["']?([^"'\s>]+)/iu.exec(attributes)?.[1];
    if (url) weight += urlWeight(url);
    found.push({ family: 'markup', weight });
  }
  for (const [url] of matchesOf(BARE_URL, text)) {
    if (PLACEHOLDER.test(url.replace(/[.,;:!?]+$/, ''))) found.push({ family: 'exfiltration', weight: 3 });
  }
  return found;
}

function urlWeight(url: string): number {
  if (PLACEHOLDER.test(url)) return 2;
  if (DATA_QUERY.test(url)) return 1;
  return url.includes('?') ? 0.5 : 0;
}

/** `[https://bank.example](https://evil.example)`: the text names another site than the target. */
function deceptiveLabel(label: string, url: string): boolean {
  const shown = /(?:https?:\/\/)?((?:[\w-]+\.)+[a-z]{2,})/iu.exec(label)?.[1]?.toLowerCase();
  const target = /^(?:https?:)?\/\/([^/?#:]+)/iu.exec(url)?.[1]?.toLowerCase();
  if (!shown || !target) return false;
  return !(target === shown || target.endsWith(`.${shown}`) || shown.endsWith(`.${target}`));
}
