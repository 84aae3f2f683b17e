import type { Layer } from '@hindsight/memory-model';

/**
 * The memory-poisoning guard of DESIGN §3.2, rule-based: content that tries to
 * instruct the model, raw dumps sent as knowledge, and secrets. It decides; the
 * write path applies the decision.
 */
export type GuardAction = 'reject' | 'quarantine';

export interface GuardPolicy {
  /** What to do with instruction-like content. */
  instructions: GuardAction;
  /** What to do with raw JSON/log dumps sent to the semantic layer. */
  rawDumps: GuardAction;
}

export type GuardVerdict =
  | { kind: 'allow'; content: string; redactions: string[] }
  | { kind: 'reject' | 'quarantine'; reason: string; content: string; redactions: string[] };

const INSTRUCTION_PATTERNS: Array<[RegExp, string]> = [
  [
    /\b(ignore|disregard|forget|override)\b.{0,40}\b(previous|prior|above|earlier|all|your)\b.{0,30}\b(instructions?|prompts?|rules?|directives?|guidelines?)\b/i,
    'tries to override instructions',
  ],
  [/\b(system prompt|system message|developer message)\b/i, 'mentions the system prompt'],
  [/^\s*(system|assistant|developer)\s*:/im, 'contains a role marker'],
  [/<\|?(im_start|im_end|system|endoftext)\|?>|\[\/?INST\]|<<SYS>>/i, 'contains chat-template tokens'],
  [
    /\byou (must|will|should) (now )?(always|never)\b.{0,80}\b(respond|answer|reply|say|obey|follow)\b/i,
    'dictates future model behaviour',
  ],
  [/\b(new|updated) instructions?\s*:/i, 'contains new instructions'],
  [
    /"(tool_calls?|function_call)"\s*:|"role"\s*:\s*"(system|assistant|tool)"/i,
    'contains a tool-call or chat-message JSON blob',
  ],
  [/忽略(之前|以上|先前|所有)的?(指令|指示|提示|规则)|系统提示(词)?/, 'tries to override instructions'],
];

const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}\b/g, 'api key'],
  [/\b(?:ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{20,}\b/g, 'github token'],
  [/\bAKIA[0-9A-Z]{16}\b/g, 'aws access key'],
  [/\bxox[abpr]-[A-Za-z0-9-]{10,}\b/g, 'slack token'],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, 'private key'],
  [/\b(?:password|passwd|api[_-]?key|secret|token)\s*[:=]\s*\S{6,}/gi, 'credential'],
  [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g, 'jwt'],
];

const CARD_CANDIDATE = /\b(?:\d[ -]?){13,19}\b/g;

export function guardContent(content: string, layer: Layer, policy: GuardPolicy): GuardVerdict {
  const redactions: string[] = [];
  let redacted = content;
  for (const [pattern, label] of SECRET_PATTERNS) {
    redacted = redacted.replace(pattern, () => {
      redactions.push(label);
      return `[redacted ${label}]`;
    });
  }
  redacted = redacted.replace(CARD_CANDIDATE, (match) => {
    if (!luhnValid(match.replace(/\D/g, ''))) return match;
    redactions.push('card number');
    return '[redacted card number]';
  });

  for (const [pattern, reason] of INSTRUCTION_PATTERNS) {
    if (pattern.test(redacted)) {
      return {
        kind: policy.instructions,
        reason: `instruction-like content: ${reason}`,
        content: redacted,
        redactions,
      };
    }
  }
  if (layer === 'semantic' && looksLikeRawDump(redacted)) {
    return {
      kind: policy.rawDumps,
      reason:
        'raw JSON or log dump sent as semantic memory: store a distilled statement instead, or use the episodic layer',
      content: redacted,
      redactions,
    };
  }
  return { kind: 'allow', content: redacted, redactions };
}

function looksLikeRawDump(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.length < 120) return false;
  if ((trimmed.startsWith('{') && trimmed.endsWith('}')) || (trimmed.startsWith('[') && trimmed.endsWith(']'))) {
    return true;
  }
  const lines = trimmed.split('\n');
  const logLines = lines.filter((l) =>
    /^\s*(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?(INFO|WARN|ERROR|DEBUG)\]?\b)/.test(l),
  );
  if (lines.length >= 3 && logLines.length / lines.length > 0.5) return true;
  const symbols = (trimmed.match(/[{}[\]":,<>=;]/g) ?? []).length;
  return symbols / trimmed.length > 0.2;
}

function luhnValid(digits: string): boolean {
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
