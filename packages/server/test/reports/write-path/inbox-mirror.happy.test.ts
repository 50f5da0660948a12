import { describe, expect, it } from 'vitest';
import type { ReportToGroup } from '../../../src/reports/write-path/index.js';
import { InboxMirror } from '../../../src/reports/write-path/sqlite/inbox-mirror.js';

/**
 * The SQLite writer's memory of its inbox (inbox-mirror.ts): it hands out a chunk's reports only
 * when their ids are, in order, the ones the file gave, so a mirror that is behind or was let go
 * costs a read of the file, never a wrong report.
 */
const report = (id: string): ReportToGroup => ({
  id,
  project_id: 'p',
  outcome: 'failure',
  tool_name: 'search',
  details: `details of ${id}`,
  created_at: '2026-11-26T00:00:00.000Z',
});

describe('inbox mirror', () => {
  it('hands out a chunk whose ids match its front, and lets go of it once moved', () => {
    const mirror = new InboxMirror();
    mirror.append(['a', 'b', 'c'].map(report));
    expect(mirror.take(['a', 'b'])?.map((r) => r.details)).toEqual([
      'details of a',
      'details of b',
    ]);
    mirror.moved(['a', 'b']);
    expect(mirror.take(['c'])?.map((r) => r.id)).toEqual(['c']);
    // Not yet stored, as far as the mirror knows.
    expect(mirror.take(['c', 'd'])).toBeNull();
  });

  it('answers null while reports it never stored come first, and lines up once they are moved', () => {
    const mirror = new InboxMirror();
    // The inbox holds x and y (left by a stopped server), then a and b.
    mirror.append(['a', 'b'].map(report));
    expect(mirror.take(['x', 'y'])).toBeNull();
    mirror.moved(['x', 'y']);
    expect(mirror.take(['a'])).not.toBeNull();
    // A chunk read from the file that took its first reports too.
    expect(mirror.take(['x', 'a'])).toBeNull();
    mirror.moved(['x', 'a']);
    expect(mirror.take(['b'])?.map((r) => r.id)).toEqual(['b']);
  });

  it('holds nothing after clear(), and never a report out of order', () => {
    const mirror = new InboxMirror();
    mirror.append(['a', 'b'].map(report));
    expect(mirror.take(['b', 'a'])).toBeNull();
    mirror.clear();
    expect(mirror.take(['a'])).toBeNull();
    mirror.append([report('c')]);
    expect(mirror.take(['c'])?.map((r) => r.id)).toEqual(['c']);
  });

  it('lets go of everything rather than grow without bound while nothing moves', () => {
    const mirror = new InboxMirror();
    const ids = Array.from({ length: 25_000 }, (_, i) => `r${i}`);
    for (let i = 0; i < ids.length; i += 1000) mirror.append(ids.slice(i, i + 1000).map(report));
    expect(mirror.take(['r0'])).toBeNull();
    expect(mirror.take(['r20000'])).not.toBeNull();
  });
});
