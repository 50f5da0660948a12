import { randomHex, type SessionInfo } from '@debrief/protocol';
import type { TestServer } from '../../../test/harness/test-server.js';
import { call, type HttpResult } from './http.js';

/** A signed-in dashboard user: its session cookie and CSRF token, and calls that carry them. */
export interface Browser {
  email: string;
  password: string;
  cookie: string;
  info: SessionInfo;
  /** A call with the session cookie and, for state-changing methods, the CSRF header. */
  call<T = any>(
    path: string,
    init?: { method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<HttpResult<T>>;
}

export function sessionCookieOf(res: HttpResult): string {
  const header = res.headers.get('set-cookie') ?? '';
  const match = /debrief_session=([^;]*)/.exec(header);
  if (!match) throw new Error(`no session cookie in ${JSON.stringify(header)}`);
  return `debrief_session=${match[1]}`;
}

export function browserFor(server: TestServer, email: string, password: string, res: HttpResult) {
  const cookie = sessionCookieOf(res);
  const info = res.body as SessionInfo;
  const browser: Browser = {
    email,
    password,
    cookie,
    info,
    call(path, init = {}) {
      const method = init.method ?? (init.body !== undefined ? 'POST' : 'GET');
      return call(`${server.url}${path}`, {
        ...init,
        method,
        headers: {
          cookie,
          ...(method === 'GET' ? {} : { 'x-csrf-token': info.csrf_token }),
          ...init.headers,
        },
      });
    },
  };
  return browser;
}

/** Signs up a fresh account over HTTP (one scrypt hash, ~100–300 ms). */
export async function signUp(
  server: TestServer,
  password = 'correct horse battery',
): Promise<Browser> {
  const email = `u-${randomHex(6)}@example.test`;
  const res = await call(`${server.url}/v1/auth/signup`, { body: { email, password } });
  if (res.status !== 201)
    throw new Error(`signup failed: ${res.status} ${JSON.stringify(res.body)}`);
  return browserFor(server, email, password, res);
}
