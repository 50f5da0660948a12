import { describe, expect, it } from 'vitest';
import { type UsagePiece, usagePieces } from '../../src/tool-usage/tool-usage.repository.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (iso: string) => new Date(iso);

/** Which table counts the minute starting at `ms`, if any piece does. */
function coverOf(pieces: UsagePiece[], ms: number): string[] {
  return pieces
    .filter((p) => {
      const size = p.column === 'day' ? DAY : p.column === 'hour' ? HOUR : 60_000;
      const bucket = Math.floor(ms / size) * size;
      return (!p.from || bucket >= p.from.getTime()) && (!p.before || bucket < p.before.getTime());
    })
    .map((p) => p.table);
}

describe('usagePieces', () => {
  const horizon = at('2026-11-20T00:00:00Z');

  it('sums all time from the daily sums alone', () => {
    expect(usagePieces({}, horizon)).toEqual([{ table: 'tool_usage_days', column: 'day' }]);
  });

  it('counts every minute of a recent range exactly once, and none outside it', () => {
    const from = at('2026-11-24T22:17:00Z');
    const before = at('2026-11-27T03:41:00Z');
    const pieces = usagePieces({ from, before }, horizon);
    for (let ms = from.getTime() - 2 * HOUR; ms < before.getTime() + 2 * HOUR; ms += 60_000) {
      const inside = ms >= from.getTime() && ms < before.getTime();
      expect(coverOf(pieces, ms).length, new Date(ms).toISOString()).toBe(inside ? 1 : 0);
    }
    expect(pieces.map((p) => p.table).sort()).toEqual([
      'tool_usage_days',
      'tool_usage_hours',
      'tool_usage_hours',
      'tool_usage_windows',
      'tool_usage_windows',
    ]);
  });

  it('counts the whole hour at an end older than the windows kept', () => {
    const from = at('2026-11-10T22:17:00Z');
    const before = at('2026-11-12T03:41:00Z');
    const pieces = usagePieces({ from, before }, horizon);
    expect(pieces.every((p) => p.table !== 'tool_usage_windows')).toBe(true);
    // The hour holding each end counts whole, once.
    expect(coverOf(pieces, at('2026-11-10T22:05:00Z').getTime())).toEqual(['tool_usage_hours']);
    expect(coverOf(pieces, at('2026-11-12T03:55:00Z').getTime())).toEqual(['tool_usage_hours']);
    expect(coverOf(pieces, at('2026-11-10T21:59:00Z').getTime())).toEqual([]);
    expect(coverOf(pieces, at('2026-11-12T04:00:00Z').getTime())).toEqual([]);
    for (
      let ms = at('2026-11-10T22:00:00Z').getTime();
      ms < at('2026-11-12T04:00:00Z').getTime();
      ms += 60_000
    ) {
      expect(coverOf(pieces, ms).length).toBe(1);
    }
  });
});
