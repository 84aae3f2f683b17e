import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface RecordedRequest {
  model: string;
  messages: Array<{ role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }>;
  tools?: Array<{
    type: string;
    function: {
      name: string;
      description?: string;
      parameters: { properties: Record<string, unknown> } & Record<string, unknown>;
    };
  }>;
  tool_choice?: unknown;
}

export interface ScriptedAnswer {
  content?: string;
  toolCalls?: Array<{ name: string; arguments: unknown }>;
}

/** The answer to one request; a promise holds the answer back until it settles (a slow model). */
export type Script = (request: RecordedRequest) => ScriptedAnswer | Promise<ScriptedAnswer>;

/**
 * A small local HTTP server speaking the OpenAI chat-completions protocol (`POST
 * /v1/chat/completions`, tool calls included) — the stand-in for a remote LLM, which
 * cannot exist here. It answers by a script and records every request.
 */
export async function startChatCompletionsServer(
  script: Script,
): Promise<{ url: string; requests: RecordedRequest[]; close(): Promise<void> }> {
  const requests: RecordedRequest[] = [];
  let calls = 0;
  const server: Server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'not found' } }));
      return;
    }
    const body = JSON.parse(await readBody(req)) as RecordedRequest;
    requests.push(body);
    const answer = await script(body);
    const toolCalls = (answer.toolCalls ?? []).map((call) => ({
      id: `call_${++calls}`,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `chatcmpl-${calls}-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: answer.content ?? null,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('not listening');
  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}
