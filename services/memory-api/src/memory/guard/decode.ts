import { matchesOf } from './phrase.ts';

/**
 * Text hidden in encodings a model reads without being asked to: base64, hex, percent-encoding
 * and HTML character references. Only decodings that are readable text come back, so a git
 * hash, a UUID or an image's base64 yields nothing.
 */

export type Encoding = 'base64' | 'hex' | 'percent-encoding' | 'html-entities';

export interface DecodedText {
  encoding: Encoding;
  text: string;
}

const BASE64_RUN = /[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9_-]{16,}={0,2}/g;
const HEX_RUN = /(?:0x)?((?:[0-9a-fA-F]{2}){10,})/g;
const PERCENT_RUN = /(?:%[0-9a-fA-F]{2}[^%\s]{0,3}){4,}/g;
const ENTITY = /&#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}));|&(lt|gt|amp|quot|apos|nbsp);/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: ' ' };

const LONG_RUN = /\S{16}/;

/** At most this many blobs per text are decoded, so a huge note cannot make the guard slow. */
const MAX_BLOBS = 8;

export function decodeHiddenText(text: string): DecodedText[] {
  const found: DecodedText[] = [];
  // Every blob is a run of 16+ characters without a space; most memories have none.
  if (LONG_RUN.test(text)) {
    for (const match of matchesOf(BASE64_RUN, text)) {
      if (found.length >= MAX_BLOBS) break;
      const run = match[0];
      // A plain word or identifier is not base64: real payloads mix cases and digits or pad.
      if (!/[A-Z]/.test(run) || !/[a-z]/.test(run)) continue;
      const decoded = readable(Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
      if (decoded) found.push({ encoding: 'base64', text: decoded });
    }
    for (const match of matchesOf(HEX_RUN, text)) {
      if (found.length >= MAX_BLOBS) break;
      const decoded = readable(Buffer.from(match[1] as string, 'hex'));
      if (decoded) found.push({ encoding: 'hex', text: decoded });
    }
  }
  if (text.includes('%')) {
    for (const match of matchesOf(PERCENT_RUN, text)) {
      const decoded = percentDecode(match[0]);
      if (decoded) found.push({ encoding: 'percent-encoding', text: decoded });
    }
  }
  if (text.includes('&')) {
    let count = 0;
    const decoded = text.replace(ENTITY, (_whole, hex: string | undefined, dec: string | undefined, name?: string) => {
      count += 1;
      if (name) return NAMED[name] as string;
      const code = hex ? Number.parseInt(hex, 16) : Number(dec);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    });
    if (count >= 3) found.push({ encoding: 'html-entities', text: decoded });
  }
  return found;
}

function percentDecode(run: string): string | undefined {
  const bytes: number[] = [];
  for (let i = 0; i < run.length; i++) {
    if (run[i] === '%' && /^[0-9a-fA-F]{2}$/.test(run.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(run.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(run.charCodeAt(i) & 0xff);
    }
  }
  return readable(Buffer.from(bytes));
}

/** The bytes as text when they are valid UTF-8 and mostly letters and spaces; else undefined. */
function readable(bytes: Buffer): string | undefined {
  if (bytes.length < 8) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // Not UTF-8: binary data (an image, a hash), not hidden text.
    return undefined;
  }
  const letters = (text.match(/[\p{L}\s]/gu) ?? []).length;
  const controls = (text.match(/(?![\t\n\r])[\p{Cc}\uFFFD]/gu) ?? []).length;
  if (controls > 0 || letters / text.length < 0.75 || !/\p{L}{2,}[\s,.:;!?]+\p{L}{2,}/u.test(text)) return undefined;
  return text;
}
