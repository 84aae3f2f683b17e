import { createServer, type Server } from 'node:http';

export interface LocalChatServer {
  /** Base URL for `LLM_BASE_URL` (ends in /v1). */
  baseUrl: string;
  /** Chat completion requests received so far. */
  requests: number;
  close(): Promise<void>;
}

/**
 * A local stand-in for a remote LLM: a node:http server speaking OpenAI's
 * `POST /v1/chat/completions`, answering every request with `content` as the
 * assistant message (which may be anything, including invalid JSON).
 */
export async function startLocalChatServer(content: (requestNumber: number) => string): Promise<LocalChatServer> {
  const state = { requests: 0 };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      state.requests += 1;
      const model = (JSON.parse(body) as { model?: string }).model ?? 'local';
      const message = content(state.requests);
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: `chatcmpl-${state.requests}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: message } }],
          usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
