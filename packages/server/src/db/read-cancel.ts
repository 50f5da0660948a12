import {
  type CompiledQuery,
  createQueryId,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import type { DB } from './schema.js';

/**
 * How the report reads of a request are stopped when its client goes away (so the server does
 * not keep working for seconds after an abandoned request), carried explicitly instead of by an
 * AsyncLocalStorage. Each GET request reads through its own view of the database
 * (`cancellableReads`, made by http/read-cancellation.ts as `request.ctx.db`); every statement
 * that view runs is tagged with the request's ReadCancel, which the routed driver hands to the
 * read pool with the statement (routed-dialect.ts).
 *
 * Why not AsyncLocalStorage: on Node 20 the first `run()` turns on a
 * hook on every promise the process creates, for good. pg, Kysely and Fastify make dozens a
 * request: against no read scope at all it costs a page read 8–23 % more of the server's CPU
 * (interleaved A/B, PostgreSQL and SQLite, page 1 and `outcome=failure`), half of it the hook,
 * half an AbortController (an EventTarget and its listeners) per GET; and ingest after a single
 * GET (a health probe) costs 4–17 % more CPU a report than before any. This view and its
 * ReadCancel cost ~1.5 % of the event loop's busy time.
 */
export class ReadCancel {
  #cancelled = false;
  #listeners: (() => void)[] = [];

  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** Calls `listener` once when cancelled (never, if it already was); the result unsubscribes. */
  onCancel(listener: () => void): () => void {
    if (this.#cancelled) return () => {};
    this.#listeners.push(listener);
    return () => {
      const at = this.#listeners.indexOf(listener);
      if (at >= 0) this.#listeners.splice(at, 1);
    };
  }

  cancel(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/** Each tagged statement's cancel, by its query id (an object Kysely makes per statement). */
const cancelOfQueryId = new WeakMap<QueryId, ReadCancel>();
/** Each view's cancel and the database it is a view of. */
const views = new WeakMap<Kysely<DB>, { base: Kysely<DB>; cancel: ReadCancel }>();

/** Tags every statement the builder compiles for a view (Kysely calls it with the id). */
class TagStatements implements KyselyPlugin {
  constructor(private readonly cancel: ReadCancel) {}
  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    cancelOfQueryId.set(queryId, this.cancel);
    return node;
  }
  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

/**
 * A view of `db` whose statements carry `cancel`: the same connections, pools and transactions,
 * built in a few allocations (Kysely's withPlugin).
 */
export function cancellableReads(db: Kysely<DB>, cancel: ReadCancel): Kysely<DB> {
  const view = db.withPlugin(new TagStatements(cancel));
  views.set(view, { base: views.get(db)?.base ?? db, cancel });
  return view;
}

/** The request's cancel a database handle reads for, if it is a view. */
export function readCancelOf(db: Kysely<DB>): ReadCancel | undefined {
  return views.get(db)?.cancel;
}

/** The database a handle is a view of (itself if none): what compiled statements are kept by. */
export function baseOf(db: Kysely<DB>): Kysely<DB> {
  return views.get(db)?.base ?? db;
}

/**
 * A statement compiled ahead (db/compiled-shapes.ts) as `db` would run it: with a query id of
 * its own, tagged with the view's cancel, when `db` is a view.
 */
export function tagCompiled<O>(db: Kysely<DB>, query: CompiledQuery<O>): CompiledQuery<O> {
  const cancel = readCancelOf(db);
  if (!cancel) return query;
  const tagged = { ...query, queryId: createQueryId() };
  cancelOfQueryId.set(tagged.queryId, cancel);
  return tagged;
}

/** The cancel a statement was tagged with (routed-dialect.ts), if any. */
export function cancelOfStatement(query: CompiledQuery): ReadCancel | undefined {
  return cancelOfQueryId.get(query.queryId);
}
