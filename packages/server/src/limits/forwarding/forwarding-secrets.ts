import { createHash } from 'node:crypto';
import { type ForwardingSecretInfo, randomHex } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import { LookupCache } from '../../db/lookup-cache.js';
import type { DB } from '../../db/schema.js';
import { toWireTimestamp } from '../../db/wire-timestamp.js';
import { newId } from '../../ids.js';
import {
  findProjectOfSecretHash,
  insertForwardingSecret,
  listForwardingSecretsOfProject,
  revokeForwardingSecret,
} from './forwarding-secret.repository.js';

/** `wf_` + 48 lowercase hex characters (192 random bits). */
export const FORWARDING_SECRET_PREFIX = 'wf_';
const FORWARDING_SECRET_PATTERN = /^wf_[0-9a-f]{48}$/;
/** Characters of a secret the dashboard shows to tell secrets apart. */
const VISIBLE_PREFIX_LENGTH = 9;

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * Which project a forwarding secret belongs to, as the ingest gate asks on every forwarded
 * request: by the secret's hash, kept LOOKUP_CACHE_MS (db/lookup-cache.ts), synchronous on a hit
 * so the submit hot path pays no promise. A revocation on this instance applies at once
 * (`forgetProject`), on others within LOOKUP_CACHE_MS.
 */
export class ForwardingSecrets {
  private readonly cache: LookupCache<{ projectId: string } | null>;

  constructor(private readonly db: Kysely<DB>) {
    this.cache = new LookupCache(async (hash) => {
      const projectId = await findProjectOfSecretHash(db, hash);
      return projectId === undefined ? null : { projectId };
    });
  }

  /** The project of an active secret, or null: synchronous when cached. */
  projectOf(secret: string): string | null | Promise<string | null> {
    if (!FORWARDING_SECRET_PATTERN.test(secret)) return null;
    const hash = hashSecret(secret);
    const cached = this.cache.peek(hash);
    if (cached !== undefined) return cached?.projectId ?? null;
    return Promise.resolve(this.cache.get(hash)).then((found) => found?.projectId ?? null);
  }

  /** A new secret for the project: returned once, stored hashed. */
  async create(
    projectId: string,
    name: string,
  ): Promise<{ secret: string; info: ForwardingSecretInfo }> {
    const secret = FORWARDING_SECRET_PREFIX + randomHex(24);
    const createdAt = new Date();
    const id = newId();
    const prefix = secret.slice(0, VISIBLE_PREFIX_LENGTH);
    await insertForwardingSecret(this.db, {
      id,
      projectId,
      name,
      prefix,
      secretHash: hashSecret(secret),
      createdAt,
    });
    this.cache.delete(hashSecret(secret));
    return {
      secret,
      info: { id, name, prefix, created_at: toWireTimestamp(createdAt), revoked_at: null },
    };
  }

  async list(projectId: string): Promise<ForwardingSecretInfo[]> {
    return (await listForwardingSecretsOfProject(this.db, projectId)).map((row) => ({
      id: row.id,
      name: row.name,
      prefix: row.prefix,
      created_at: toWireTimestamp(row.created_at),
      revoked_at: toWireTimestamp(row.revoked_at),
    }));
  }

  /** Revokes a secret; it stops working on this instance at once. False if none such. */
  async revoke(projectId: string, id: string): Promise<boolean> {
    const revoked = await revokeForwardingSecret(this.db, projectId, id, new Date());
    if (revoked) this.forgetProject(projectId);
    return revoked;
  }

  forgetProject(projectId: string): void {
    this.cache.forget((value) => value?.projectId === projectId);
  }

  sweep(now = Date.now()): void {
    this.cache.sweep(now);
  }
}
