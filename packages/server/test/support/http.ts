/** Small helpers for real HTTP calls against a test server. */
export interface HttpResult<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = any>(
  url: string,
  init: { method?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const response = await fetch(url, {
    method: init.method ?? (init.body !== undefined || init.raw !== undefined ? 'POST' : 'GET'),
    headers: {
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    body: init.raw ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: response.status, headers: response.headers, body: body as T };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
