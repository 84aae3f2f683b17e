import { redactCardNumbers } from './cards.ts';

/**
 * Secrets taken out of a memory before it is stored: keys and tokens by their issuers' formats,
 * private key blocks, credentials in URLs and headers, and values given for a password-like
 * key. Only the secret is replaced; the words and whitespace around it stay as they were.
 */
export const REDACTION_KINDS = [
  'card_number',
  'card_security_code',
  'api_key',
  'access_token',
  'private_key',
  'password',
] as const;
export type RedactionKind = (typeof REDACTION_KINDS)[number];

const LABEL: Record<RedactionKind, string> = {
  card_number: 'card number',
  card_security_code: 'card security code',
  api_key: 'api key',
  access_token: 'access token',
  private_key: 'private key',
  password: 'password',
};

/** Whole-match secrets, by issuer format, each behind a literal any match contains (a cheap gate). */
const TOKEN_FORMATS: ReadonlyArray<readonly [RegExp, RedactionKind, readonly string[]]> = [
  [
    /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    'private_key',
    ['-----BEGIN'],
  ],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, 'access_token', ['eyJ']],
  [/\bsk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\d{2}-)?[A-Za-z0-9_-]{20,}/g, 'api_key', ['sk-']],
  [
    /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}/g,
    'access_token',
    ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
  ],
  [/\bglpat-[A-Za-z0-9_-]{20,}/g, 'access_token', ['glpat-']],
  [/\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, 'api_key', ['AKIA', 'ASIA', 'ABIA', 'ACCA']],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, 'api_key', ['AIza']],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, 'access_token', ['xox']],
  [/https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]+/g, 'access_token', ['hooks.slack.com']],
  [
    /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b|\bwhsec_[A-Za-z0-9]{24,}\b/g,
    'api_key',
    ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_', 'whsec_'],
  ],
  [/\bnpm_[A-Za-z0-9]{36}\b/g, 'access_token', ['npm_']],
  [/\bhf_[A-Za-z0-9]{30,}\b/g, 'access_token', ['hf_']],
  [/\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g, 'api_key', ['SG.']],
  [/\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g, 'access_token', [':AA']],
];

/** `scheme://user:password@host`: the password goes, the rest of the URL stays readable. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:)([^\s@/]+)(@)/gi;
/** `Authorization: Bearer …` and friends. */
const AUTH_HEADER = /\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/-]{16,}=*)/g;

const PASSWORD_KEYS =
  'password|passwd|pwd|passcode|passphrase|pin(?: code)?|mot de passe|contrase[nñ]a|passwort|kennwort|пароль|密码|口令|パスワード|비밀번호|senha|wachtwoord|has[lł]o';
const TOKEN_KEYS = '(?:access|auth|refresh|session|bearer|api)[_ -]?token|token';
const KEY_KEYS =
  'api[_ -]?key|apikey|access[_ -]?key|secret[_ -]?key|private[_ -]?key|client[_ -]?secret|account[_ -]?key';
/** `password: hunter2`, `api_key=…`, `my PIN is 4821`, `密码是abc123`: only the value is replaced. */
const ASSIGNMENT = new RegExp(
  `(?<![A-Za-z0-9_])(${PASSWORD_KEYS}|${TOKEN_KEYS}|${KEY_KEYS})(?![A-Za-z0-9_])(\\s*(?:[:=：]|=>|\\bis\\b|\\bwas\\b|是|为|est|es|ist|это|:)\\s*["'\`]?)([^\\s"'\`,;，。]{4,})`,
  'giu',
);
const MAY_ASSIGN =
  /pass|pwd|pin|token|key|secret|密码|口令|パスワード|비밀번호|senha|wacht|has[lł]o|kennwort|пароль|contrase|mot de passe/i;
const CARD_SECURITY_CODE = /\b(cvv2?|cvc2?|csc|card security code|security code)(\s*[:=]?\s*)(\d{3,4})\b/gi;

/** Common words after "password is …" that are not the password ("the password is in 1Password"). */
const NOT_A_VALUE = new Set([
  'the',
  'a',
  'an',
  'my',
  'your',
  'his',
  'her',
  'their',
  'our',
  'in',
  'on',
  'at',
  'not',
  'stored',
  'saved',
  'written',
  'same',
  'correct',
  'wrong',
  'reset',
  'changed',
  'expired',
  'required',
  'needed',
  'hidden',
  'unknown',
  'missing',
  'empty',
  'set',
  'valid',
  'invalid',
  'secret',
  'strong',
  'weak',
  'long',
  'short',
  'there',
  'here',
  'below',
  'above',
  'protected',
  'encrypted',
  'manager',
  'required.',
  'optional',
  'none',
  'null',
  'undefined',
  'redacted',
]);

export interface Redaction {
  content: string;
  /** Kinds of secret removed, each once, in a stable order. */
  kinds: RedactionKind[];
}

export function redactSecrets(text: string): Redaction {
  const found = new Set<RedactionKind>();
  let content = text;
  for (const [format, kind, hints] of TOKEN_FORMATS) {
    if (!hints.some((hint) => content.includes(hint))) continue;
    content = content.replace(format, () => {
      found.add(kind);
      return `[redacted ${LABEL[kind]}]`;
    });
  }
  if (content.includes('://'))
    content = content.replace(URL_CREDENTIALS, (_m, head: string, _password: string, at: string) => {
      found.add('password');
      return `${head}[redacted password]${at}`;
    });
  content = content.replace(AUTH_HEADER, (_m, scheme: string, space: string) => {
    found.add('access_token');
    return `${scheme}${space}[redacted access token]`;
  });
  if (MAY_ASSIGN.test(content))
    content = content.replace(ASSIGNMENT, (whole, key: string, separator: string, value: string) => {
      const kind = assignmentKind(key);
      if (!isSecretValue(value, kind)) return whole;
      found.add(kind);
      return `${key}${separator}[redacted ${LABEL[kind]}]`;
    });
  if (/cvv|cvc|csc|security code/i.test(content))
    content = content.replace(CARD_SECURITY_CODE, (_m, key: string, separator: string) => {
      found.add('card_security_code');
      return `${key}${separator}[redacted ${LABEL.card_security_code}]`;
    });
  const cards = redactCardNumbers(content);
  if (cards.count > 0) found.add('card_number');
  return { content: cards.content, kinds: REDACTION_KINDS.filter((kind) => found.has(kind)) };
}

function assignmentKind(key: string): RedactionKind {
  const lower = key.toLowerCase();
  if (new RegExp(`^(?:${PASSWORD_KEYS})$`, 'iu').test(lower)) return 'password';
  if (lower.includes('token')) return 'access_token';
  return 'api_key';
}

function isSecretValue(value: string, kind: RedactionKind): boolean {
  if (value.startsWith('[redacted')) return false;
  const lower = value.toLowerCase().replace(/[.!?]+$/, '');
  if (NOT_A_VALUE.has(lower)) return false;
  if (kind === 'password' && /^\d{4,8}$/.test(value)) return true; // a PIN
  if (value.length < 6) return false;
  const hasDigit = /\d/.test(value);
  const hasSymbol = /[^\p{L}\p{N}]/u.test(value);
  const mixedCase = /\p{Lu}/u.test(value) && /\p{Ll}/u.test(value.slice(1));
  return hasDigit || hasSymbol || mixedCase || value.length >= 12 || !/^[\p{L}]+$/u.test(value);
}
