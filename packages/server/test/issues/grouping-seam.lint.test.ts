import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeReportIds,
  QUEUE_ROW_REPORTS,
  queueRowOf,
  queueRowsInsertSql,
} from '../../src/db/grouping-queue-row.js';

const SRC = join(import.meta.dirname, '../../src');

function sourcesUnder(folder: string): string[] {
  return readdirSync(join(SRC, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(SRC, folder, file));
}

/** Every module a file imports (static, dynamic and type-only), as written. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1] as string);
}

/**
 * The seam between writing and grouping (reports/write-path/grouping-port.ts): the write path
 * owns the port and knows nothing of the grouper; the grouping pipeline is reached through its
 * one entry. `npm run lint` (madge) fails on any import circle; this checks the direction.
 */
describe('the seam between the write path and grouping', () => {
  it('leaves reports/write-path/ without an import of issues/ or of the wiring', () => {
    const crossings = sourcesUnder('reports/write-path').flatMap((file) =>
      importsOf(file)
        .filter((spec) => /\/(issues|wiring)\//.test(spec))
        .map((spec) => `${relative(SRC, file)} imports ${spec}`),
    );
    expect(crossings).toEqual([]);
  });

  it('reaches the grouping pipeline only through issues/pipeline/index.ts from outside it', () => {
    const outside = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.startsWith('issues/pipeline/'))
      .map((file) => join(SRC, file));
    const reaching = outside.flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.includes('/pipeline/') && !spec.endsWith('/pipeline/index.js'))
        .map((spec) => `${relative(SRC, file)} imports ${spec}`),
    );
    expect(reaching).toEqual([]);
  });
});

describe('a grouping_queue row', () => {
  it('names its batch in order, from the earliest report, by its first id', () => {
    const row = queueRowOf([
      { id: 'b', createdAt: new Date('2026-01-01T00:00:02Z') },
      { id: 'a', createdAt: new Date('2026-01-01T00:00:01Z') },
    ]);
    expect(row).not.toBeNull();
    const [id, createdAt, reportIds] = row!;
    expect(id).toBe('b');
    expect(createdAt).toBe('2026-01-01T00:00:01.000Z');
    expect(decodeReportIds(reportIds)).toEqual(['b', 'a']);
    expect(queueRowOf([])).toBeNull();
  });

  it('is written by SQL in rows of at most QUEUE_ROW_REPORTS, on either dialect', () => {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const text = queueRowsInsertSql(dialect, { id: 'id', source: 'from t', order: 'rowid' });
      expect(text).toContain('insert into grouping_queue (id, created_at, report_ids)');
      expect(text).toContain(`/ ${QUEUE_ROW_REPORTS} as part`);
    }
  });
});
