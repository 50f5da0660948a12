import type { ProblemDetails } from '@debrief/protocol';

/**
 * An error the API answered with. `detail` is the problem-details text, written to be shown
 * to a person as it is.
 */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly body: Partial<ProblemDetails> & Record<string, unknown>,
  ) {
    super(detail);
    this.name = 'ApiFailure';
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiClient {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  patch<T>(path: string, body?: unknown): Promise<T>;
  put<T>(path: string, body?: unknown): Promise<T>;
  del(path: string): Promise<void>;
  /** The session's CSRF token, sent as `x-csrf-token` on every state-changing request. */
  setCsrfToken(token: string | null): void;
  /** Called when a request answers 401 not_authenticated: the session ended elsewhere. */
  onSignedOut(listener: () => void): () => void;
}

async function readFailure(response: Response): Promise<ApiFailure> {
  let body: Record<string, unknown> = {};
  try {
    body = (await response.json()) as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's error page): fall back to the status line below.
  }
  const detail =
    typeof body.detail === 'string'
      ? body.detail
      : `The server answered ${response.status} ${response.statusText || ''}`.trim();
  const code = typeof body.code === 'string' ? body.code : 'http_error';
  return new ApiFailure(response.status, code, detail, body);
}

/** A small fetch wrapper: JSON in and out, same-origin cookies, CSRF header, problem details. */
export function createApiClient(baseUrl = ''): ApiClient {
  let csrfToken: string | null = null;
  const signedOutListeners = new Set<() => void>();

  async function request<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, {
        method,
        headers,
        credentials: 'same-origin',
        body: body === undefined ? null : JSON.stringify(body),
      });
    } catch {
      throw new ApiFailure(
        0,
        'network_error',
        'Could not reach the server. Check your connection and try again.',
        {},
      );
    }
    if (!response.ok) {
      const failure = await readFailure(response);
      if (failure.code === 'not_authenticated' && !path.startsWith('/v1/auth/')) {
        for (const listener of signedOutListeners) listener();
      }
      throw failure;
    }
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  return {
    get: (path) => request('GET', path),
    post: (path, body) => request('POST', path, body ?? {}),
    patch: (path, body) => request('PATCH', path, body ?? {}),
    put: (path, body) => request('PUT', path, body ?? {}),
    del: async (path) => {
      await request<void>('DELETE', path);
    },
    setCsrfToken(token) {
      csrfToken = token;
    },
    onSignedOut(listener) {
      signedOutListeners.add(listener);
      return () => signedOutListeners.delete(listener);
    },
  };
}

export function errorText(error: unknown): string {
  if (error instanceof ApiFailure) return error.detail;
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}
