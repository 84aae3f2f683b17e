import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isLoopbackHost } from '@hindsight/config';
import type { Logger } from '@hindsight/logger';

/** One `name:key` entry of a key setting (`API_KEYS`, `AGENT_API_KEYS`, …). */
export interface KeyEntry {
  name: string;
  key: string;
}

export interface KeySetting {
  /** The variable's value: `name:key,name:key`. */
  list?: string | undefined;
  /** A file with one `name:key` per line (secrets mounted by compose); `#` starts a comment line. */
  file?: string | undefined;
  /** Names the variable in the error an operator reads. */
  variable: string;
}

/** Reads `name:key` entries from a comma list and/or a file; a malformed entry fails the boot, naming the variable. */
export function readKeyEntries(setting: KeySetting): KeyEntry[] {
  const lines = [
    ...(setting.list ?? '').split(','),
    ...(setting.file ? readFileSync(setting.file, 'utf8').split('\n') : []),
  ];
  const entries: KeyEntry[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim();
    const key = line.slice(colon + 1).trim();
    if (colon <= 0 || !name || !key) {
      throw new Error(`${setting.variable} entries must look like name:key (one per comma or line)`);
    }
    entries.push({ name, key });
  }
  return entries;
}

/**
 * Presented key → what it stands for. Every entry is compared in constant time and the whole
 * table is always walked, so the answer time says nothing about which key was close.
 */
export class KeyTable<T> {
  private readonly entries: Array<{ key: Buffer; value: T }>;

  constructor(entries: ReadonlyArray<{ key: string; value: T }>) {
    this.entries = entries.map((e) => ({ key: Buffer.from(e.key), value: e.value }));
  }

  get size(): number {
    return this.entries.length;
  }

  find(key: string): T | undefined {
    const candidate = Buffer.from(key);
    let found: T | undefined;
    for (const entry of this.entries) if (sameKey(entry.key, candidate)) found = entry.value;
    return found;
  }
}

function sameKey(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `Authorization: Bearer <key>`, Basic with the key as password (a browser), or `X-API-Key` → the key. */
export function bearerKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match) return match[1];
    // Basic (any user name, the key as password): how a browser opens /admin/queues.
    const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization.trim());
    if (basic) {
      const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon >= 0 && colon < decoded.length - 1) return decoded.slice(colon + 1);
    }
  }
  const apiKey = headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey.length > 0 ? apiKey : undefined;
}

export interface ListenPolicy {
  host: string;
  /** At least one caller key is configured. */
  keysConfigured: boolean;
  /** What the keys are called and what to set: `API keys`, `API_KEYS (and ADMIN_API_KEY)`. */
  keys: string;
  keyVariables: string;
  /** Who a caller is when no keys exist, for the warning: `every caller is tenant "default"`. */
  openCallers: string;
}

/** A bind the configuration forbids; the process ends with EX_CONFIG (78), not a crash code. */
export class ListenRefusedError extends Error {
  readonly exitCode = 78;
}

/**
 * DESIGN §9, the same for every service that takes callers: without keys it listens on loopback
 * only and says so; asked to listen further without keys, it refuses to start.
 */
export function enforceListenPolicy(log: Logger, policy: ListenPolicy): void {
  if (policy.keysConfigured) return;
  if (!isLoopbackHost(policy.host)) {
    throw new ListenRefusedError(
      `refusing to listen on a non-loopback address without ${policy.keys} (HOST=${policy.host}): set ${policy.keyVariables}`,
    );
  }
  log.warn(`no ${policy.keys} configured: listening on loopback only, ${policy.openCallers}`);
}
