import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { baseOf, tagCompiled } from './read-cancel.js';
import type { DB } from './schema.js';

/** More shapes than this means a builder branches on something that is no shape: not kept. */
const MAX_SHAPES = 256;

/** The texts of the statements kept, of every builder: a bounded set of fixed statements. */
const keptTexts = new Set<string>();

/**
 * Whether `sql` is the text of a statement compiled once per shape: one the server runs again
 * and again, from a bounded set, which the PostgreSQL read connections prepare by name
 * (pg-read-pool.ts).
 */
export function isCompiledShapeText(sql: string): boolean {
  return keptTexts.has(sql);
}

/**
 * A statement the server runs on every request, compiled once per shape instead of built and
 * compiled by Kysely's query builder each time: building and compiling the statements of the
 * reports list (the API key, the project, the counts, the page) costs 16–28 % of a read's CPU
 * on the event loop (PostgreSQL, CPU profiles of page 1 + stats and of a one-report page).
 *
 * `build(db, shape, params)` decides the statement from `shape` alone (the dialect, which
 * filters are present: anything that changes the SQL text) and places each of `params` as a
 * bound value, untouched: it is compiled once per database and shape with stand-ins for them,
 * and each call binds its own values where the stand-ins were. A value the statement binds
 * that is no stand-in is part of the statement and stays. The compiled tree is the builder's,
 * so the read routing (routed-dialect.ts) sees the tables a statement reads. Given a
 * request's view of the database (read-cancel.ts), the statement is compiled for the database
 * it views and tagged with the request's cancel.
 */
export function compiledShapes<S, P extends Record<string, unknown>, O>(
  build: (db: Kysely<DB>, shape: S, params: P) => Compilable<O>,
): (db: Kysely<DB>, shape: S, params: P) => CompiledQuery<O> {
  const databases = new WeakMap<Kysely<DB>, Map<string, Compiled<P, O>>>();
  return (db, shape, params) => {
    const base = baseOf(db);
    let shapes = databases.get(base);
    if (!shapes) {
      shapes = new Map();
      databases.set(base, shapes);
    }
    const key = JSON.stringify(shape);
    let entry = shapes.get(key);
    if (!entry) {
      entry = compileShape((s: S, p: P) => build(base, s, p), shape, params);
      if (shapes.size < MAX_SHAPES) {
        shapes.set(key, entry);
        keptTexts.add(entry.compiled.sql);
      }
    }
    const { compiled, slots } = entry;
    return tagCompiled(db, {
      ...compiled,
      parameters: slots.map((slot) => ('param' in slot ? params[slot.param] : slot.value)),
    });
  };
}

type Slot<P> = { param: keyof P } | { value: unknown };
interface Compiled<P, O> {
  compiled: CompiledQuery<O>;
  slots: Slot<P>[];
}

function compileShape<S, P extends Record<string, unknown>, O>(
  build: (shape: S, params: P) => Compilable<O>,
  shape: S,
  params: P,
): Compiled<P, O> {
  // Only the keys of the first call's params are used, never its values. A stand-in is no
  // constant of a statement: the server's statements hold no NUL.
  const standIns: Record<string, string> = {};
  const names = new Map<string, keyof P>();
  for (const name of Object.keys(params)) {
    const standIn = `\u0000${name}\u0000`;
    standIns[name] = standIn;
    names.set(standIn, name);
  }
  const compiled = build(shape, standIns as P).compile();
  if (compiled.sql.includes('\u0000')) {
    throw new Error('compiledShapes: a parameter was written into the SQL text, not bound');
  }
  const slots = compiled.parameters.map((value): Slot<P> => {
    const param = typeof value === 'string' ? names.get(value) : undefined;
    return param !== undefined ? { param } : { value };
  });
  return { compiled, slots };
}

/**
 * A list of values (the ids of a page) as one bound parameter each, `i0`, `i1`…, into `params`:
 * a statement compiled per count of them (the shape) places them with `boundIds`.
 */
export function bindIds(
  ids: readonly string[],
  params: Record<string, string> = {},
): Record<string, string> {
  ids.forEach((id, i) => {
    params[`i${i}`] = id;
  });
  return params;
}

/** The `count` ids bindIds placed, inside a shape's builder. */
export function boundIds(count: number, params: Record<string, string>): string[] {
  return Array.from({ length: count }, (_, i) => params[`i${i}`] as string);
}
