import { randomHex, type SessionInfo } from '@debrief/protocol';
import { expect } from 'vitest';
import type { TestServer } from '../../../../test/harness/test-server.js';
import { createSession } from '../../src/sessions/session.service.js';
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

/**
 * Signs up a fresh account over HTTP (one scrypt hash, ~100–300 ms). A second account needs
 * `SIGNUPS=open` on the server or an invitation token (`options.invitation`).
 */
export async function signUp(
  server: TestServer,
  password = 'correct horse battery',
  options: { email?: string; invitation?: string } = {},
): Promise<Browser> {
  const email = options.email ?? `u-${randomHex(6)}@example.test`;
  const res = await call(`${server.url}/v1/auth/signup`, {
    body: { email, password, invitation: options.invitation },
  });
  if (res.status !== 201)
    throw new Error(`signup failed: ${res.status} ${JSON.stringify(res.body)}`);
  return browserFor(server, email, password, res);
}

/** The token of an invitation link (`…/signup?invite=<token>`). */
export function inviteToken(url: string): string {
  const token = new URL(url).searchParams.get('invite');
  if (!token) throw new Error(`no invitation token in ${url}`);
  return token;
}

/**
 * A session for an existing account, made straight in the database: no scrypt, for tests
 * that are about the console rather than about signing in.
 */
export async function sessionFor(server: TestServer, accountId: string): Promise<Browser> {
  const { id, csrfToken } = await createSession(server.ctx.db, accountId);
  const res = await call(`${server.url}/v1/auth/session`, {
    headers: { cookie: `debrief_session=${id}` },
  });
  if (res.status !== 200) throw new Error(`session failed: ${res.status}`);
  const fake = { ...res, headers: new Headers({ 'set-cookie': `debrief_session=${id}; Path=/` }) };
  const browser = browserFor(server, res.body.account.email, '', fake);
  expect(browser.info.csrf_token).toBe(csrfToken);
  return browser;
}
