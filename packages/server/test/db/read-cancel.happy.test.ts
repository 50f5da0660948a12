import {
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { compiledShapes } from '../../src/db/compiled-shapes.js';
import {
  baseOf,
  cancellableReads,
  cancelOfStatement,
  ReadCancel,
  readCancelOf,
} from '../../src/db/read-cancel.js';
import type { DB } from '../../src/db/schema.js';

/** Compiles only: what a statement carries is decided before any driver sees it. */
function compileOnly(): Kysely<DB> {
  return new Kysely<DB>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
}

describe('a request read cancel (db/read-cancel.ts)', () => {
  it('calls each listener once, not after it unsubscribed, and none when already cancelled', () => {
    const cancel = new ReadCancel();
    const calls: string[] = [];
    cancel.onCancel(() => calls.push('a'));
    const stop = cancel.onCancel(() => calls.push('b'));
    stop();
    expect(cancel.cancelled).toBe(false);
    cancel.cancel();
    cancel.cancel();
    expect(cancel.cancelled).toBe(true);
    expect(calls).toEqual(['a']);
    cancel.onCancel(() => calls.push('late'));
    expect(calls).toEqual(['a']);
  });

  it("tags every statement of a request's view, and none of the database's own", () => {
    const db = compileOnly();
    const cancel = new ReadCancel();
    const view = cancellableReads(db, cancel);
    expect(readCancelOf(view)).toBe(cancel);
    expect(readCancelOf(db)).toBeUndefined();
    expect(baseOf(view)).toBe(db);
    expect(baseOf(db)).toBe(db);

    const built = view.selectFrom('reports').select('id').compile();
    const raw = sql`select count(*) from reports`.compile(view);
    expect(cancelOfStatement(built)).toBe(cancel);
    expect(cancelOfStatement(raw)).toBe(cancel);
    expect(cancelOfStatement(db.selectFrom('reports').select('id').compile())).toBeUndefined();
    expect(cancelOfStatement(sql`select 1`.compile(db))).toBeUndefined();

    // Two requests' views of one database: each statement carries its own request's.
    const other = new ReadCancel();
    const second = cancellableReads(db, other);
    expect(cancelOfStatement(second.selectFrom('reports').select('id').compile())).toBe(other);
    expect(cancelOfStatement(view.selectFrom('reports').select('id').compile())).toBe(cancel);
  });

  it('tags statements compiled ahead, compiled once for the database the views share', () => {
    const db = compileOnly();
    let builds = 0;
    const byProject = compiledShapes((kysely: Kysely<DB>, _shape: object, p: { id: string }) => {
      builds++;
      return kysely.selectFrom('reports').select('id').where('project_id', '=', p.id);
    });
    const a = new ReadCancel();
    const b = new ReadCancel();
    const first = byProject(cancellableReads(db, a), {}, { id: 'p1' });
    const second = byProject(cancellableReads(db, b), {}, { id: 'p2' });
    const plain = byProject(db, {}, { id: 'p3' });
    expect(builds).toBe(1);
    expect(cancelOfStatement(first)).toBe(a);
    expect(cancelOfStatement(second)).toBe(b);
    expect(cancelOfStatement(plain)).toBeUndefined();
    expect([first.parameters, second.parameters, plain.parameters]).toEqual([
      ['p1'],
      ['p2'],
      ['p3'],
    ]);
    expect(first.sql).toBe(plain.sql);
  });
});
