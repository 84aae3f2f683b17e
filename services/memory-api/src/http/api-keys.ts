import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The tenant every request belongs to when no API keys are configured (loopback-only mode). */
export const OPEN_TENANT = 'default';

/**
 * API key → tenant. Keys come from `API_KEYS=tenant:key,...` and/or a file with
 * one `tenant:key` per line. With no keys the service is open, loopback only.
 */
export class ApiKeys {
  private readonly tenants: Array<{ key: Buffer; tenant: string }>;
  private readonly admin: Buffer | undefined;

  constructor(entries: Array<{ tenant: string; key: string }>, adminKey?: string) {
    this.tenants = entries.map((e) => ({ key: Buffer.from(e.key), tenant: e.tenant }));
    this.admin = adminKey ? Buffer.from(adminKey) : undefined;
  }

  static fromConfig(config: {
    API_KEYS?: string | undefined;
    API_KEYS_FILE?: string | undefined;
    ADMIN_API_KEY?: string | undefined;
  }): ApiKeys {
    const lines = [
      ...(config.API_KEYS ?? '').split(','),
      ...(config.API_KEYS_FILE ? readFileSync(config.API_KEYS_FILE, 'utf8').split('\n') : []),
    ];
    const entries: Array<{ tenant: string; key: string }> = [];
    for (const raw of lines) {
      const line = raw.trim();
      if (!line || line.startsWith('#')) continue;
      const colon = line.indexOf(':');
      if (colon <= 0 || colon === line.length - 1) {
        throw new Error('API_KEYS entries must look like tenant:key (one per comma or line)');
      }
      entries.push({ tenant: line.slice(0, colon).trim(), key: line.slice(colon + 1).trim() });
    }
    return new ApiKeys(entries, config.ADMIN_API_KEY);
  }

  /** No keys at all: the service must stay on loopback. */
  get open(): boolean {
    return this.tenants.length === 0 && this.admin === undefined;
  }

  /** Every tenant a key exists for (the tenants maintenance jobs walk). */
  tenantNames(): string[] {
    if (this.open) return [OPEN_TENANT];
    return [...new Set(this.tenants.map((t) => t.tenant))];
  }

  tenantFor(key: string): string | undefined {
    if (this.open) return OPEN_TENANT;
    const candidate = Buffer.from(key);
    let found: string | undefined;
    for (const entry of this.tenants) if (safeEqual(entry.key, candidate)) found = entry.tenant;
    return found;
  }

  isAdmin(key: string): boolean {
    if (this.open) return true;
    return this.admin !== undefined && safeEqual(this.admin, Buffer.from(key));
  }
}

function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `Authorization: Bearer <key>` (or `X-API-Key`) → the key, or undefined. */
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
