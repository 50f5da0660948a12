import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { LookupCache } from '../db/lookup-cache.js';
import { type DB, toDate } from '../db/schema.js';
import { parseCookies, serializeCookie } from './cookies.js';
import {
  deleteExpiredSessions,
  deleteSession,
  extendSession,
  findLiveSession,
  insertSession,
} from './session.repository.js';

export const SESSION_COOKIE = 'debrief_session';
/** Sessions live 30 days after the last use (sliding). */
export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
/** The expiry is pushed forward at most once an hour, not on every request. */
const EXTEND_AFTER_MS = 3600 * 1000;
/** 256 random bits, base64url: 43 characters. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface Session {
  idHash: string;
  accountId: string;
  email: string;
  csrfToken: string;
}

function hashSessionId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

/** A new session; returns the cookie value, which is never stored in clear. */
export async function createSession(db: Kysely<DB>, accountId: string) {
  const now = new Date();
  const id = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  // Expired rows are swept at sign-in, where a write happens anyway (indexed by expiry).
  await deleteExpiredSessions(db, now);
  await insertSession(db, {
    idHash: hashSessionId(id),
    accountId,
    csrfToken,
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
  });
  return { id, csrfToken };
}

/** The session id the request carries in its cookie, if it has the right shape. */
export function sessionIdOf(request: FastifyRequest): string | null {
  const value = parseCookies(request.headers.cookie).get(SESSION_COOKIE);
  return value && SESSION_ID_PATTERN.test(value) ? value : null;
}

type LiveSession = NonNullable<Awaited<ReturnType<typeof findLiveSession>>>;
export type Sessions = LookupCache<LiveSession | null>;

/**
 * The live sessions as every dashboard request checks them (one statement, a round trip on
 * PostgreSQL, per request otherwise): kept LOOKUP_CACHE_MS by id hash. Signing out on this
 * instance ends the session at once (endSession); on another instance (several on one
 * PostgreSQL) within that time, as an API key's revocation. Expiry is checked on every use.
 */
export function sessionCache(db: Kysely<DB>): Sessions {
  return new LookupCache(async (idHash) => (await findLiveSession(db, idHash, new Date())) ?? null);
}

/** The live session of the request, extending its expiry when it is used (sliding). */
export async function resolveSession(
  ctx: { db: Kysely<DB>; sessions: Sessions },
  request: FastifyRequest,
): Promise<Session | null> {
  const id = sessionIdOf(request);
  if (!id) return null;
  const idHash = hashSessionId(id);
  const now = new Date();
  const row = await ctx.sessions.get(idHash);
  if (!row) return null;
  const expiresAt = toDate(row.expires_at).getTime();
  if (expiresAt <= now.getTime()) return null;
  if (now.getTime() + SESSION_TTL_MS - expiresAt > EXTEND_AFTER_MS) {
    const extended = new Date(now.getTime() + SESSION_TTL_MS);
    await extendSession(ctx.db, idHash, extended);
    ctx.sessions.set(idHash, { ...row, expires_at: extended });
  }
  return { idHash, accountId: row.account_id, email: row.email, csrfToken: row.csrf_token };
}

export async function endSession(
  ctx: { db: Kysely<DB>; sessions: Sessions },
  request: FastifyRequest,
): Promise<void> {
  const id = sessionIdOf(request);
  if (!id) return;
  const idHash = hashSessionId(id);
  await deleteSession(ctx.db, idHash);
  ctx.sessions.delete(idHash);
}

/** Secure cookies when the instance is public over https, or this request came over https. */
function secureCookie(ctx: { config: Config }, request: FastifyRequest): boolean {
  return ctx.config.publicUrl.startsWith('https:') || request.protocol === 'https';
}

export function setSessionCookie(
  ctx: { config: Config },
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
): void {
  reply.header(
    'set-cookie',
    serializeCookie(SESSION_COOKIE, id, {
      maxAgeSeconds: SESSION_TTL_MS / 1000,
      secure: secureCookie(ctx, request),
    }),
  );
}

export function clearSessionCookie(
  ctx: { config: Config },
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.header(
    'set-cookie',
    serializeCookie(SESSION_COOKIE, '', { maxAgeSeconds: 0, secure: secureCookie(ctx, request) }),
  );
}
