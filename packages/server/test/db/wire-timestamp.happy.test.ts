import { formatWireTimestamp } from '@debrief/protocol';
import { describe, expect, it } from 'vitest';
import { isStoredIsoText, toWireTimestamp } from '../../src/db/wire-timestamp.js';

describe('a stored time on the wire', () => {
  it("cuts SQLite's text to what parsing and printing it gives, for any time", () => {
    let state = 7;
    const random = () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state / 2_147_483_648;
    };
    const times = [0, 1, 999, 1000, 86_399_999, Date.UTC(2026, 10, 26, 23, 59, 59, 999)];
    for (let i = 0; i < 1000; i++) times.push(Math.floor(random() * Date.UTC(2200, 0, 1)));
    for (const ms of times) {
      const date = new Date(ms);
      const stored = date.toISOString();
      expect(isStoredIsoText(stored)).toBe(true);
      expect(toWireTimestamp(stored)).toBe(formatWireTimestamp(date));
      expect(toWireTimestamp(date)).toBe(formatWireTimestamp(date));
    }
  });

  it('parses any other text, as PostgreSQL or an older row might give it', () => {
    for (const text of [
      '2026-11-26 01:02:03.456+00',
      '2026-11-26T01:02:03Z',
      '2026-11-26T02:02:03.456+01:00',
    ]) {
      expect(isStoredIsoText(text)).toBe(false);
      expect(toWireTimestamp(text)).toBe(formatWireTimestamp(new Date(text)));
    }
    expect(toWireTimestamp('2026-11-26T02:02:03.456+01:00')).toBe('2026-11-26T01:02:03Z');
  });
});
