/**
 * DNS-rebinding protection for `/mcp`: a browser page on an attacker's domain that
 * resolves to this machine still sends its own name in `Host`, so only answering
 * known host names stops it from driving the memory tools.
 */
export type HostPolicy = { kind: 'any' } | { kind: 'list'; entries: readonly string[] };

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** `MCP_ALLOWED_HOSTS`: unset → loopback names on the listening port; `*` → no check; else a list. */
export function hostPolicy(setting: string | undefined): HostPolicy | undefined {
  if (setting === undefined) return undefined;
  if (setting.trim() === '*') return { kind: 'any' };
  const entries = setting
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry.length > 0);
  return { kind: 'list', entries };
}

/** The default policy: loopback names with the port the server actually listens on. */
export function loopbackPolicy(port: number): HostPolicy {
  return { kind: 'list', entries: LOOPBACK_NAMES.map((name) => `${name}:${port}`) };
}

/** An entry `host` allows that name on any port; `host:port` only on that port. */
export function hostAllowed(policy: HostPolicy, hostHeader: string | undefined): boolean {
  if (policy.kind === 'any') return true;
  if (!hostHeader) return false;
  const host = hostHeader.trim().toLowerCase();
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return policy.entries.some((entry) => entry === host || entry === name);
}
