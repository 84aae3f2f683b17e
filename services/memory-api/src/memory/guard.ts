import type { Layer } from '@hindsight/memory-model';
import { assessInstructions, STRONG_EVIDENCE, WEAK_EVIDENCE } from './guard/instructions.ts';
import type { SignalFamily } from './guard/phrase.ts';
import { type RedactionKind, redactSecrets } from './guard/secrets.ts';

export type { RedactionKind } from './guard/secrets.ts';

/**
 * The memory-poisoning guard of DESIGN §3.2, the one every write path calls: it redacts
 * secrets, then weighs the evidence that the content is an instruction aimed at the model
 * (guard/instructions.ts). Strong evidence is refused (or quarantined, by policy); weaker
 * evidence is quarantined — kept, never returned by search, listed for admins — so benign
 * text that merely talks about instructions is not lost. It decides; the write path applies
 * the decision.
 */
export type GuardAction = 'reject' | 'quarantine';

export interface GuardPolicy {
  /** What to do with content that is clearly an instruction to the model (weak evidence is always quarantined). */
  instructions: GuardAction;
  /** What to do with raw JSON/log dumps sent to the semantic layer. */
  rawDumps: GuardAction;
}

export type GuardVerdict =
  | { kind: 'allow'; content: string; redactions: RedactionKind[] }
  | { kind: 'reject' | 'quarantine'; reason: string; content: string; redactions: RedactionKind[] };

const FAMILY_REASON: Record<SignalFamily, string> = {
  override: 'tries to override earlier instructions',
  'new-instructions': 'announces new instructions for the model',
  addressee: 'addresses the AI model directly',
  persona: "tries to change the model's persona",
  unrestricted: "tries to lift the model's rules (jailbreak)",
  bypass: 'tries to disable safety rules',
  leak: 'asks to reveal the system prompt or private data',
  exfiltration: 'tries to send data to an outside address',
  role: 'contains role or system markers',
  template: 'contains chat-template control tokens',
  tool: 'contains tool-call JSON or commands for the model',
  behaviour: "dictates the model's future behaviour",
  promotion: 'promotes products or links',
  deception: 'tells the model to deceive or pressure the user',
  payment: 'redirects payments',
  markup: 'embeds an external image, link or HTML',
  obfuscation: 'hides its words (zero-width or look-alike characters, leetspeak, split words)',
  encoded: 'hides an instruction in an encoding (base64, hex, ROT13, reversed text)',
};

export function guardContent(content: string, layer: Layer, policy: GuardPolicy): GuardVerdict {
  const { content: redacted, kinds: redactions } = redactSecrets(content);
  const assessment = assessInstructions(redacted);
  const why = assessment.families
    .slice(0, 3)
    .map((family) => FAMILY_REASON[family])
    .join('; ');
  if (assessment.score >= STRONG_EVIDENCE) {
    return { kind: policy.instructions, reason: `instruction-like content: ${why}`, content: redacted, redactions };
  }
  if (assessment.score >= WEAK_EVIDENCE) {
    return {
      kind: 'quarantine',
      reason: `held for review, possibly instruction-like: ${why}`,
      content: redacted,
      redactions,
    };
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
