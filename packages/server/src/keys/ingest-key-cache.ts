import type { Kysely } from 'kysely';
import { LookupCache } from '../db/lookup-cache.js';
import type { DB } from '../db/schema.js';
import { findIngestKeyProfile, type IngestKeyProfile } from './ingest-key.repository.js';

export type { IngestKeyProfile } from './ingest-key.repository.js';

/**
 * What the submit path reads about an ingest key before the writer runs — its project, the
 * project's bucket settings (limits/ingest-gate.ts) and its redaction setting
 * (reports/screening/) — in one cache per process that both use, read by one query
 * (db/lookup-cache.ts, LOOKUP_CACHE_MS). Unknown keys are remembered too, for the same time: the gate throttles
 * made-up keys per address before they cost a lookup each. A change made on this instance
 * applies at once (`forgetProject`), on others within LOOKUP_CACHE_MS. The report writer does not
 * use it: it looks keys up in its own transaction, so a rotated key stores nothing once the
 * rotation has committed.
 */
export class IngestKeyCache {
  private readonly cache: LookupCache<IngestKeyProfile | null>;

  constructor(db: Kysely<DB>) {
    this.cache = new LookupCache(async (key) => (await findIngestKeyProfile(db, key)) ?? null);
  }

  /** The fresh cached answer: a profile, null for no such key, undefined if it must be read. */
  peek(key: string, now = Date.now()): IngestKeyProfile | null | undefined {
    return this.cache.peek(key, now);
  }

  /** The profile of an active key, or null: from the cache if fresh, else read. */
  get(key: string): IngestKeyProfile | null | Promise<IngestKeyProfile | null> {
    return this.cache.get(key);
  }

  /** Drops a project's cached keys (its settings changed, or its key was rotated). */
  forgetProject(projectId: string): void {
    this.cache.forget((profile) => profile?.project_id === projectId);
  }

  /** Drops expired entries (the gate's sweeper calls it). */
  sweep(now = Date.now()): void {
    this.cache.sweep(now);
  }
}
