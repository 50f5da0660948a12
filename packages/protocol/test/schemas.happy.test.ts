import { describe, expect, it } from 'vitest';
import {
  formatWireTimestamp,
  ListReportsQuery,
  parseTimeBound,
  ReportInput,
} from '../src/index.js';

describe('ReportInput', () => {
  it('trims, and turns empty or null labels into null', () => {
    expect(
      ReportInput.parse({ outcome: 'success', details: '  ok  ', tool_name: '  ', source: null }),
    ).toEqual({
      outcome: 'success',
      details: 'ok',
      tool_name: null,
      source: null,
      metadata: null,
    });
  });

  it('refuses reserved metadata keys, which JSON.parse keeps as own properties, naming each', () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const parsed = ReportInput.safeParse({
        outcome: 'success',
        details: 'x',
        metadata: JSON.parse(`{"${key}": {"polluted": true}, "a": 1}`),
      });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toEqual([
        `metadata.${key}`,
      ]);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('time bounds', () => {
  it('covers a whole day for a date, a minute, a second or a millisecond as written', () => {
    const span = (text: string) => {
      const bound = parseTimeBound(text)!;
      return bound.end.getTime() - bound.start.getTime();
    };
    expect(span('2026-11-21')).toBe(86_400_000);
    expect(span('2026-11-21T10:00')).toBe(60_000);
    expect(span('2026-11-21T10:00:00Z')).toBe(1000);
    expect(span('2026-11-21T10:00:00.5Z')).toBe(1);
  });

  it('honours offsets and defaults to UTC', () => {
    expect(parseTimeBound('2026-11-21T10:00:00+02:00')!.start.toISOString()).toBe(
      '2026-11-21T08:00:00.000Z',
    );
    expect(parseTimeBound('2026-11-21T10:00:00-0530')!.start.toISOString()).toBe(
      '2026-11-21T15:30:00.000Z',
    );
    expect(parseTimeBound('2026-11-21T10:00:00')!.start.toISOString()).toBe(
      '2026-11-21T10:00:00.000Z',
    );
    // An unencoded + in a URL arrives as a space.
    expect(parseTimeBound('2026-11-21T10:00:00 02:00')!.start.toISOString()).toBe(
      '2026-11-21T08:00:00.000Z',
    );
  });

  it('refuses impossible dates and times', () => {
    for (const text of [
      '2026-02-29',
      '2026-13-01',
      '2026-11-21T24:00',
      '2026-11-21T10:60',
      'yesterday',
      '2026-11-21T10:00:00+25:00',
    ]) {
      expect(parseTimeBound(text), text).toBeNull();
    }
    expect(parseTimeBound('2028-02-29')).not.toBeNull();
  });
});

describe('ListReportsQuery', () => {
  it('defaults to 50 a page (the first, page absent) and clamps limit to 100', () => {
    expect(ListReportsQuery.parse({})).toEqual({ limit: 50 });
    expect(ListReportsQuery.parse({ limit: '101' }).limit).toBe(100);
  });

  it('takes a cursor instead of a page, never both', () => {
    expect(ListReportsQuery.parse({ cursor: 'abc' })).toEqual({ cursor: 'abc', limit: 50 });
    const both = ListReportsQuery.safeParse({ cursor: 'abc', page: '2' });
    expect(both.success).toBe(false);
    expect(both.error?.issues[0]?.path).toEqual(['page']);
    expect(ListReportsQuery.safeParse({ cursor: '' }).success).toBe(false);
  });
});

it('formats wire timestamps in whole UTC seconds', () => {
  expect(formatWireTimestamp(new Date('2026-11-21T14:30:00.999Z'))).toBe('2026-11-21T14:30:00Z');
});
