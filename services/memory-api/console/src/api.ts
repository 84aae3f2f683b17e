/**
 * The console's only way to the server: memory-api's public REST API, with the key the person
 * entered. The key lives in sessionStorage (this tab only, gone when it closes), never in a URL.
 */

export interface Credentials {
  key: string;
  /** Only with the admin key: the tenant it acts for (sent as `X-Tenant-Id`). */
  tenant?: string;
}

const CREDENTIALS = 'hindsight-console:credentials';

export function loadCredentials(): Credentials | undefined {
  const stored = sessionStorage.getItem(CREDENTIALS);
  if (!stored) return undefined;
  const parsed = JSON.parse(stored) as Partial<Credentials>;
  return typeof parsed.key === 'string' && parsed.key ? { key: parsed.key, ...tenantOf(parsed.tenant) } : undefined;
}

export function saveCredentials(credentials: Credentials): void {
  sessionStorage.setItem(CREDENTIALS, JSON.stringify(credentials));
}

export function forgetCredentials(): void {
  sessionStorage.removeItem(CREDENTIALS);
}

function tenantOf(tenant: unknown): { tenant?: string } {
  return typeof tenant === 'string' && tenant ? { tenant } : {};
}

/** An error reply of the API: `{error: {code, message, details?}}`, or what the transport said. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export class Api {
  constructor(
    private readonly credentials: Credentials,
    /** Called on every 401: the key is no good (any more), back to the key prompt. */
    private readonly onUnauthorized: (message: string) => void,
  ) {}

  get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (value !== undefined && value !== '') params.set(name, String(value));
    const search = params.toString();
    return this.request<T>('GET', search ? `${path}?${search}` : path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  /** Prometheus text of `/metrics`. */
  async metrics(): Promise<string> {
    return this.request<string>('GET', '/metrics');
  }

  private async request<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.credentials.key}` };
    if (this.credentials.tenant) headers['x-tenant-id'] = this.credentials.tenant;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers,
        cache: 'no-store',
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (cause) {
      throw new ApiError(0, 'unreachable', `memory-api did not answer (${(cause as Error).message})`);
    }
    const text = await response.text();
    const json = (response.headers.get('content-type') ?? '').includes('application/json');
    if (!response.ok) {
      const error = errorOf(response, json ? parseJson(text) : undefined, text);
      if (response.status === 401) this.onUnauthorized(error.message);
      throw error;
    }
    return (json ? parseJson(text) : text) as T;
  }
}

function parseJson(text: string): unknown {
  return text ? JSON.parse(text) : undefined;
}

function errorOf(response: Response, body: unknown, text: string): ApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  if (error && typeof error.message === 'string') {
    return new ApiError(response.status, String(error.code ?? 'error'), error.message, error.details);
  }
  return new ApiError(
    response.status,
    'http_error',
    `${response.status} ${response.statusText} ${text.slice(0, 200)}`.trim(),
  );
}
