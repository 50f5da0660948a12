import { describe, expect, it } from 'vitest';
import { LookupCache } from '../../src/db/lookup-cache.js';

/** A cache over a fake read that counts its calls and can be held open or made to fail. */
function cacheOver(options = { ttlMs: 1_000, maxEntries: 10 }) {
  const reads: string[] = [];
  let release: (() => void) | null = null;
  let failNext = false;
  const rows = new Map<string, { name: string }>([['a', { name: 'A' }]]);
  const cache = new LookupCache<{ name: string } | null>(async (key) => {
    reads.push(key);
    if (release === null && holding) await new Promise<void>((r) => (release = r));
    if (failNext) {
      failNext = false;
      throw new Error('database gone');
    }
    return rows.get(key) ?? null;
  }, options);
  let holding = false;
  return {
    cache,
    reads,
    rows,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      release?.();
      release = null;
    },
    failNext: () => {
      failNext = true;
    },
  };
}

describe('LookupCache', () => {
  it('reads a key once while fresh, absent rows included, and again once expired', async () => {
    const t = cacheOver();
    expect(await t.cache.get('a')).toEqual({ name: 'A' });
    expect(await t.cache.get('nope')).toBeNull();
    expect(t.cache.get('a')).toEqual({ name: 'A' });
    expect(t.cache.peek('nope')).toBeNull();
    expect(t.reads).toEqual(['a', 'nope']);
    expect(t.cache.peek('a', Date.now() + 1_001)).toBeUndefined();
  });

  it('shares one read among concurrent misses, and keeps no failed read', async () => {
    const t = cacheOver();
    t.hold();
    const both = Promise.all([t.cache.get('a'), t.cache.get('a')]);
    t.release();
    expect(await both).toEqual([{ name: 'A' }, { name: 'A' }]);
    expect(t.reads).toEqual(['a']);
    t.failNext();
    await expect(t.cache.get('b')).rejects.toThrow('database gone');
    t.rows.set('b', { name: 'B' });
    expect(await t.cache.get('b')).toEqual({ name: 'B' });
  });

  it('forgets what a write changed, and never keeps a read that was out during it', async () => {
    const t = cacheOver();
    await t.cache.get('a');
    t.rows.set('a', { name: 'renamed' });
    t.cache.forget((row) => row?.name === 'A');
    expect(await t.cache.get('a')).toEqual({ name: 'renamed' });

    t.hold();
    const stale = t.cache.get('c');
    t.cache.forget(() => false);
    t.rows.set('c', { name: 'C' });
    t.release();
    await stale;
    expect(t.cache.peek('c')).toBeUndefined();
    t.cache.set('c', { name: 'set' });
    expect(t.cache.peek('c')).toEqual({ name: 'set' });
  });

  it('starts afresh past its bound', async () => {
    const t = cacheOver({ ttlMs: 1_000, maxEntries: 3 });
    for (const key of ['k1', 'k2', 'k3']) await t.cache.get(key);
    expect(t.cache.peek('k1')).toBeNull();
    await t.cache.get('k4');
    expect(t.cache.peek('k1')).toBeUndefined();
    expect(t.cache.peek('k4')).toBeNull();
  });
});
