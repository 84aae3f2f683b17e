import { connect, type Socket } from 'node:net';
import { createLogger } from '@hindsight/logger';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { closeApp, createServiceApp, refuseWhileClosing } from '../src/index.ts';

/**
 * Shutdown as an HTTP client sees it, over real sockets: a request on a connection that is busy
 * when the listener closes (pipelined behind one still being sent) is answered in the error
 * envelope, and a client that never finishes its request cannot hold the close open.
 */
let app: FastifyInstance | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  app?.server.closeAllConnections();
  await app?.close();
  app = undefined;
});

async function listening(build: () => FastifyInstance): Promise<{ app: FastifyInstance; port: number }> {
  const instance = build();
  instance.post('/echo', async (request) => ({ echoed: request.body }));
  await instance.listen({ host: '127.0.0.1', port: 0 });
  app = instance;
  const address = instance.server.address();
  if (typeof address !== 'object' || !address) throw new Error('not listening');
  return { app: instance, port: address.port };
}

/** A raw connection collecting what the server sends; `responses()` splits it into HTTP responses. */
async function rawConnection(port: number) {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  await new Promise((resolve) => socket.once('connect', resolve));
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    closed,
    responses: () =>
      received
        .split(/(?=HTTP\/1\.1 \d{3})/)
        .filter(Boolean)
        .map((raw) => {
          const [head = '', body = ''] = raw.split('\r\n\r\n');
          return { status: Number(head.slice(9, 12)), head: head.toLowerCase(), body };
        }),
  };
}

const silent = createLogger({ service: 'shutdown-test', level: 'silent' });
const builders: Array<[string, () => FastifyInstance]> = [
  [
    'createServiceApp (memory-api, embedder, agent)',
    () =>
      createServiceApp({
        service: 'test-service',
        level: 'silent',
        logger: silent,
        bodyLimit: 1024,
        requestLogging: 'debug',
      }) as unknown as FastifyInstance,
  ],
  [
    'a plain Fastify with refuseWhileClosing (the worker health server)',
    () => {
      const plain = Fastify({ logger: false, return503OnClosing: false });
      refuseWhileClosing(plain, 'test-service');
      return plain;
    },
  ],
];

describe.each(builders)('shutting down: %s', (_name, build) => {
  it('answers a request that reaches it while it closes with 503 shutting_down in the error envelope, and closes that connection', async () => {
    const { app: server, port } = await listening(build);
    const client = await rawConnection(port);
    const body = JSON.stringify({ hello: 'world' });
    // The first request is still being sent when the shutdown begins...
    client.socket.write(
      `POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = closeApp(server, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // ...then it is finished, and a second one follows on the same connection.
    client.socket.write(`${body.slice(5)}GET /echo-again HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await client.closed;
    await closing;

    const [first, second] = client.responses();
    expect(first?.status).toBe(200);
    expect(JSON.parse(first?.body ?? '')).toEqual({ echoed: { hello: 'world' } });
    expect(second?.status).toBe(503);
    expect(JSON.parse(second?.body ?? '')).toEqual({
      error: { code: 'shutting_down', message: 'test-service is shutting down; send the request again' },
    });
    expect(second?.head).toContain('connection: close');
  });

  it('cuts a connection whose request never finishes once the drain time is over, so closing completes', async () => {
    const { app: server, port } = await listening(build);
    const client = await rawConnection(port);
    client.socket.write(
      'POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"never":',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await closeApp(server, 300);
    await client.closed;
    expect(client.socket.destroyed).toBe(true);
  });
});
