import { KeyTable, readKeyEntries } from '@hindsight/http';

/** The tenant every request belongs to when no API keys are configured (loopback-only mode). */
export const OPEN_TENANT = 'default';

/**
 * API key → tenant. Keys come from `API_KEYS=tenant:key,...` and/or a file with
 * one `tenant:key` per line. With no keys the service is open, loopback only.
 */
export class ApiKeys {
  private readonly tenants: KeyTable<string>;
  private readonly admin: KeyTable<true>;
  private readonly names: string[];

  constructor(entries: ReadonlyArray<{ tenant: string; key: string }>, adminKey?: string) {
    this.tenants = new KeyTable(entries.map((e) => ({ key: e.key, value: e.tenant })));
    this.admin = new KeyTable(adminKey ? [{ key: adminKey, value: true as const }] : []);
    this.names = [...new Set(entries.map((e) => e.tenant))];
  }

  static fromConfig(config: {
    API_KEYS?: string | undefined;
    API_KEYS_FILE?: string | undefined;
    ADMIN_API_KEY?: string | undefined;
  }): ApiKeys {
    const entries = readKeyEntries({ list: config.API_KEYS, file: config.API_KEYS_FILE, variable: 'API_KEYS' });
    return new ApiKeys(
      entries.map((e) => ({ tenant: e.name, key: e.key })),
      config.ADMIN_API_KEY,
    );
  }

  /** No keys at all: the service must stay on loopback. */
  get open(): boolean {
    return this.tenants.size === 0 && this.admin.size === 0;
  }

  /** Every tenant a key exists for (the tenants maintenance jobs walk). */
  tenantNames(): string[] {
    return this.open ? [OPEN_TENANT] : [...this.names];
  }

  tenantFor(key: string): string | undefined {
    if (this.open) return OPEN_TENANT;
    return this.tenants.find(key);
  }

  isAdmin(key: string): boolean {
    if (this.open) return true;
    return this.admin.find(key) === true;
  }
}
