import type { MemoryRecord } from '@hindsight/memory-model';

export interface RestCall {
  /** Bearer key of the caller. */
  key: string;
  body?: unknown;
  /** Content type of a body (JSON unless told; a string body is sent as it is). */
  type?: string;
}

/** One request to a real memory-api over HTTP; a non-2xx answer throws with its text. JSON answers are parsed. */
export async function rest<T>(url: string, method: string, path: string, request: RestCall): Promise<T> {
  const { key, body, type = 'application/json' } = request;
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': type }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return (response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text) as T;
}

/** Every record of the key's tenant, all statuses, by id, read page after page. */
export async function allRecords(url: string, key: string, pageSize = 1000): Promise<Map<string, MemoryRecord>> {
  const records = new Map<string, MemoryRecord>();
  let cursor: string | null = null;
  do {
    const page: { items: MemoryRecord[]; next_cursor: string | null } = await rest(
      url,
      'GET',
      `/v1/memories?limit=${pageSize}${cursor ? `&cursor=${cursor}` : ''}`,
      { key },
    );
    for (const record of page.items) records.set(record.id, record);
    cursor = page.next_cursor;
  } while (cursor);
  return records;
}
