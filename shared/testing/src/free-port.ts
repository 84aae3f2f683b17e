import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports are drawn below the kernel's ephemeral range: a port the OS hands out for `listen(0)`
 * comes from that range, and between our probe closing it and the child binding it, any outgoing
 * connection on the machine (a Redis client, an HTTP request) may be given it as its local port.
 */
const RANGE = ((): { low: number; high: number } => {
  try {
    const [first] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (first !== undefined && first > 12_000) return { low: 10_000, high: first };
  } catch {
    // Not Linux: the conventional range starts at 49152.
  }
  return { low: 20_000, high: 49_152 };
})();

/** Ports this process has handed out already: two spawns started together never share one. */
const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A loopback TCP port nobody listens on right now and no other caller in this process was given. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = RANGE.low + Math.floor(Math.random() * (RANGE.high - RANGE.low));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${RANGE.low} and ${RANGE.high} after 200 tries`);
}
