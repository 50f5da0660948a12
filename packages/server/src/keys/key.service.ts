import { createHash } from 'node:crypto';
import {
  API_KEY_PREFIX,
  API_KEY_SCOPES,
  type ApiKeyScope,
  apiKeyVisiblePrefix,
  generateApiKey,
  generateIngestKey,
  INGEST_KEY_PREFIX,
  isApiKeyWellFormed,
  isIngestKeyFormat,
  isSecretKeyLike,
} from '@debrief/protocol';
import type { Kysely } from 'kysely';
import { LookupCache } from '../db/lookup-cache.js';
import type { DB } from '../db/schema.js';
import { ApiError } from '../errors/api-error.js';
import { newId } from '../ids.js';
import {
  findApiKeyByHash,
  insertApiKey,
  listApiKeysOfAccount,
  revokeApiKey,
  touchApiKey,
} from './api-key.repository.js';
import {
  findActiveIngestKeyOfProject,
  insertIngestKey,
  isActiveIngestKey,
  revokeIngestKeysOfProject,
} from './ingest-key.repository.js';

/** A SHA-256 of a 190-bit random key is enough: there is nothing to brute-force. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export async function issueIngestKey(db: Kysely<DB>, projectId: string): Promise<string> {
  const key = generateIngestKey();
  await insertIngestKey(db, { id: newId(), projectId, key, createdAt: new Date() });
  return key;
}

export async function getIngestKey(db: Kysely<DB>, projectId: string): Promise<string | null> {
  return (await findActiveIngestKeyOfProject(db, projectId))?.key ?? null;
}

/** Revokes the project's ingest key (it stops working at once) and issues a new one. */
export async function rotateIngestKey(db: Kysely<DB>, projectId: string): Promise<string> {
  return db.transaction().execute(async (trx) => {
    await revokeIngestKeysOfProject(trx, projectId, new Date());
    return issueIngestKey(trx, projectId);
  });
}

/**
 * Checks the form of the `ingest_key` of a report body, before any other field (DESIGN §2);
 * whether the key exists is the report writer's to check, in its transaction.
 */
export function checkIngestKeyFormat(raw: unknown): string {
  if (raw === undefined || raw === null || raw === '') {
    throw new ApiError(
      'missing_ingest_key',
      'The body has no ingest_key. Add "ingest_key": "wk_…" (the project ingest key shown in the Debrief dashboard or in the SKILL.md you were given) to the JSON body; no header is needed.',
    );
  }
  if (typeof raw !== 'string') {
    throw new ApiError(
      'invalid_ingest_key',
      'ingest_key must be a string: wk_ followed by 32 lowercase hex characters.',
    );
  }
  if (isSecretKeyLike(raw)) {
    throw new ApiError(
      'secret_key_not_allowed',
      `ingest_key holds a secret API key (${API_KEY_PREFIX}…). Secret keys read data and must never be embedded in agents, skills or client code: use the project's public ingest key (${INGEST_KEY_PREFIX} + 32 hex characters) instead, and consider revoking the exposed API key.`,
    );
  }
  if (!isIngestKeyFormat(raw)) {
    throw new ApiError(
      'invalid_ingest_key',
      'ingest_key is not a valid ingest key: expected wk_ followed by 32 lowercase hex characters. Copy it again from the dashboard or SKILL.md.',
    );
  }
  return raw;
}

export function unknownIngestKeyError(): ApiError {
  return new ApiError(
    'invalid_ingest_key',
    'This ingest key is unknown or has been rotated. Ask the tool developer for the current key (shown in the Debrief dashboard).',
  );
}

/** Fails with the error a submission with this (well-formed) key would get if it is unknown. */
export async function requireKnownIngestKey(db: Kysely<DB>, key: string): Promise<void> {
  if (!(await isActiveIngestKey(db, key))) throw unknownIngestKeyError();
}

/** A stored scopes column as a list, in API_KEY_SCOPES order; `read` is always there. */
export function parseScopes(text: string): ApiKeyScope[] {
  const words = text.split(/\s+/);
  return API_KEY_SCOPES.filter((scope) => scope === 'read' || words.includes(scope));
}

/** A new API key; `read` only unless `scopes` says more (`triage`: writes to issues). */
export async function createApiKey(
  db: Kysely<DB>,
  accountId: string,
  name: string,
  scopes: readonly ApiKeyScope[] = ['read'],
) {
  const key = generateApiKey();
  const granted = parseScopes(scopes.join(' '));
  const row = {
    id: newId(),
    accountId,
    name,
    prefix: apiKeyVisiblePrefix(key),
    keyHash: hashApiKey(key),
    createdAt: new Date(),
    scopes: granted.join(' '),
  };
  await insertApiKey(db, row);
  return { id: row.id, name, prefix: row.prefix, createdAt: row.createdAt, scopes: granted, key };
}

export async function listApiKeys(db: Kysely<DB>, accountId: string) {
  return listApiKeysOfAccount(db, accountId);
}

export type ApiKeyRow = NonNullable<Awaited<ReturnType<typeof findApiKeyByHash>>>;
export type ApiKeys = LookupCache<ApiKeyRow | null>;

/**
 * The secret API keys as every read request checks them (one statement, a round trip on
 * PostgreSQL, per request otherwise): kept LOOKUP_CACHE_MS by key hash, unknown hashes too. A
 * key revoked on this instance stops at once (revokeApiKeyOfAccount); on another instance
 * (several on one PostgreSQL), within that time, as an ingest key's rotation
 * (keys/ingest-key-cache.ts).
 */
export function apiKeyCache(db: Kysely<DB>): ApiKeys {
  return new LookupCache(async (hash) => (await findApiKeyByHash(db, hash)) ?? null);
}

export async function revokeApiKeyOfAccount(
  ctx: { db: Kysely<DB>; apiKeys: ApiKeys },
  accountId: string,
  keyId: string,
) {
  const revoked = await revokeApiKey(ctx.db, accountId, keyId, new Date());
  ctx.apiKeys.forget((key) => key?.id === keyId);
  if (revoked === 0)
    throw new ApiError('not_found', 'No active API key with this id in your account.');
}

/** The account an `Authorization: Bearer` API key belongs to, or the reason it is refused. */
export async function authenticateApiKey(
  ctx: { db: Kysely<DB>; apiKeys: ApiKeys },
  header: string | undefined,
): Promise<string> {
  return (await authenticateApiKeyWithScopes(ctx, header)).accountId;
}

/** The account of an `Authorization: Bearer` API key and what the key may do. */
export async function authenticateApiKeyWithScopes(
  ctx: { db: Kysely<DB>; apiKeys: ApiKeys },
  header: string | undefined,
): Promise<{ accountId: string; scopes: ApiKeyScope[]; label: string }> {
  if (!header?.trim()) {
    throw new ApiError(
      'missing_api_key',
      `Send your API key as "Authorization: Bearer ${API_KEY_PREFIX}…". API keys are created in the dashboard (or with \`debrief bootstrap\`) and shown once.`,
    );
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) {
    throw new ApiError(
      'invalid_api_key',
      `The Authorization header must be "Bearer ${API_KEY_PREFIX}…" (the word Bearer, one space, the key).`,
    );
  }
  const key = match[1]!;
  if (key.startsWith(INGEST_KEY_PREFIX) && !isSecretKeyLike(key)) {
    throw new ApiError(
      'ingest_key_cannot_read',
      `This is an ingest key (${INGEST_KEY_PREFIX}…): it can only submit reports, in the body of POST /v1/reports. Reading needs a secret API key (${API_KEY_PREFIX}…) from the dashboard.`,
    );
  }
  if (!isApiKeyWellFormed(key)) {
    throw new ApiError(
      'invalid_api_key',
      `This is not a valid API key: expected ${API_KEY_PREFIX} followed by base62 characters with a matching checksum. It may be truncated or mistyped; copy it again.`,
    );
  }
  const hash = hashApiKey(key);
  const row = await ctx.apiKeys.get(hash);
  if (!row || row.revoked_at !== null) {
    throw new ApiError(
      'invalid_api_key',
      'This API key is unknown or has been revoked. Create a new one in the dashboard.',
    );
  }
  const now = new Date();
  if (await touchApiKey(ctx.db, row, now)) ctx.apiKeys.set(hash, { ...row, last_used_at: now });
  return {
    accountId: row.account_id,
    scopes: parseScopes(row.scopes),
    // How the key is named where its actions are shown (an issue's history).
    label: `${row.name} (${row.prefix}…)`,
  };
}
