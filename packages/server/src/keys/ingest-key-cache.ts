import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { findIngestKeyProfile, type IngestKeyProfile } from './ingest-key.repository.js';

export type { IngestKeyProfile } from './ingest-key.repository.js';

/** How long what was read about an ingest key is trusted before it is read again. */
export const KEY_CACHE_MS = 10_000;
/** Keys held at most; past it the cache starts afresh (a flood of made-up keys). */
const MAX_KEYS = 50_000;

interface Entry {
  /** null: no active key (never issued, or rotated). */
  profile: IngestKeyProfile | null;
  expires: number;
}

/**
 * What the submit path reads about an ingest key before the writer runs — its project, the
 * project's bucket settings (limits/ingest-gate.ts) and its redaction setting
 * (reports/screening/) — in one 10 s cache per process that both use, read by one query.
 * Synchronous on a hit (`peek`), so the hot path pays no promise; concurrent misses of one key
 * share one load. Unknown keys are remembered too, for the same time: the gate throttles
 * made-up keys per address before they cost a lookup each. A change made on this instance
 * applies at once (`forgetProject`), on others within KEY_CACHE_MS. The report writer does not
 * use it: it looks keys up in its own transaction, so a rotated key stores nothing once the
 * rotation has committed.
 */
export class IngestKeyCache {
  private readonly entries = new Map<string, Entry | Promise<Entry>>();

  constructor(private readonly db: Kysely<DB>) {}

  /** The fresh cached answer: a profile, null for no such key, undefined if it must be read. */
  peek(key: string, now = Date.now()): IngestKeyProfile | null | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry instanceof Promise || entry.expires <= now) return undefined;
    return entry.profile;
  }

  /** The profile of an active key, or null: from the cache if fresh, else read. */
  get(key: string): IngestKeyProfile | null | Promise<IngestKeyProfile | null> {
    const cached = this.peek(key);
    if (cached !== undefined) return cached;
    const entry = this.entries.get(key);
    const loading = entry instanceof Promise ? entry : this.load(key);
    return loading.then((loaded) => loaded.profile);
  }

  /** Drops a project's cached keys (its settings changed, or its key was rotated). */
  forgetProject(projectId: string): void {
    for (const [key, entry] of this.entries) {
      if (!(entry instanceof Promise) && entry.profile?.project_id === projectId) {
        this.entries.delete(key);
      }
    }
  }

  /** Drops expired entries (the gate's sweeper calls it). */
  sweep(now = Date.now()): void {
    for (const [key, entry] of this.entries) {
      if (!(entry instanceof Promise) && entry.expires <= now) this.entries.delete(key);
    }
  }

  private load(key: string): Promise<Entry> {
    const loading = findIngestKeyProfile(this.db, key).then(
      (row): Entry => {
        const entry = { profile: row ?? null, expires: Date.now() + KEY_CACHE_MS };
        if (this.entries.size >= MAX_KEYS) this.entries.clear();
        this.entries.set(key, entry);
        return entry;
      },
      (error: unknown) => {
        this.entries.delete(key);
        throw error;
      },
    );
    this.entries.set(key, loading);
    return loading;
  }
}
