import { request as httpRequest } from 'node:http';

export interface BurstRequest {
  url: string;
  method?: 'POST' | 'PUT' | 'PATCH';
  body: unknown;
  headers?: Record<string, string>;
}

export interface BurstReply {
  status: number;
  body: unknown;
}

/**
 * Sends requests so that the server sees them at the same moment: each goes out on its own
 * connection with everything but the last byte of its body; once every connection holds its
 * partial request, the last bytes are written in one go (a barrier). The server cannot start
 * any handler before its body is complete, so all of them start together.
 */
export async function burst(requests: readonly BurstRequest[]): Promise<BurstReply[]> {
  const pending = requests.map((spec) => {
    const payload = Buffer.from(JSON.stringify(spec.body));
    const request = httpRequest(spec.url, {
      method: spec.method ?? 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': payload.length, ...spec.headers },
    });
    const reply = new Promise<BurstReply>((resolve, reject) => {
      request.once('error', reject);
      request.once('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('error', reject);
        response.once('end', () => {
          const text = Buffer.concat(chunks).toString();
          const json = response.headers['content-type']?.includes('application/json') ?? false;
          resolve({ status: response.statusCode ?? 0, body: json ? JSON.parse(text) : text });
        });
      });
    });
    const held = new Promise<void>((resolve, reject) => {
      request.once('error', reject);
      request.write(payload.subarray(0, payload.length - 1), (error) => (error ? reject(error) : resolve()));
    });
    return { request, payload, reply, held };
  });
  await Promise.all(pending.map((p) => p.held));
  for (const { request, payload } of pending) request.end(payload.subarray(payload.length - 1));
  return Promise.all(pending.map((p) => p.reply));
}
