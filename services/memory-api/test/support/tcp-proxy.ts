import { createConnection, createServer, type Socket } from 'node:net';

/** What happens to the next COMMIT a client sends through the proxy. */
export type CommitFault = 'cut-before-server' | 'drop-reply';

/**
 * A TCP proxy on loopback in front of a real server, which can break connections the way a network
 * or a restarting server does: every live connection at once, the next message of any client, or
 * around the next PostgreSQL COMMIT (simple-protocol `Q` message).
 */
export interface TcpProxy {
  port: number;
  /** Connections cut so far. */
  cuts: number;
  cutAll(): void;
  cutNextMessage(): void;
  failNextCommit(fault: CommitFault): void;
  close(): Promise<void>;
}

const COMMIT_QUERY = Buffer.from('COMMIT\0');

export async function startTcpProxy(upstreamPort: number): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; server: Socket }>();
  let cutNext = false;
  let commitFault: CommitFault | undefined;
  const proxy: TcpProxy = {
    port: 0,
    cuts: 0,
    cutAll() {
      for (const pair of pairs) cut(pair);
    },
    cutNextMessage() {
      cutNext = true;
    },
    failNextCommit(fault) {
      commitFault = fault;
    },
    close: () =>
      new Promise((resolve) => {
        proxy.cutAll();
        server.close(() => resolve());
      }),
  };
  const cut = (pair: { client: Socket; server: Socket }) => {
    if (!pairs.delete(pair)) return;
    proxy.cuts++;
    pair.client.destroy();
    pair.server.destroy();
  };

  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: upstreamPort });
    const pair = { client, server: upstream };
    pairs.add(pair);
    let dropReply = false;
    client.on('data', (chunk: Buffer) => {
      if (cutNext) {
        cutNext = false;
        cut(pair);
        return;
      }
      if (commitFault && chunk[0] === 0x51 && chunk.includes(COMMIT_QUERY)) {
        const fault = commitFault;
        commitFault = undefined;
        if (fault === 'cut-before-server') {
          cut(pair);
          return;
        }
        dropReply = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      // The server answered the COMMIT: it took effect, but the client never hears so.
      if (dropReply) cut(pair);
      else client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on('error', () => cut(pair));
      socket.on('close', () => cut(pair));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the proxy is not listening');
  proxy.port = address.port;
  return proxy;
}
