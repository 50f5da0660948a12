import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../../test/harness/databases.js';
import type { DB } from '../../src/db/schema.js';

/** A node of `explain (format json)`, with the fields the plan tests read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  /** With `analyze`: pages found in PostgreSQL's buffers, and pages it had to read. */
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** The node and every node under it. */
const planNodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(planNodes)];

export interface PlanningDatabase {
  /** One connection: the statements of a test see the session and transaction it set. */
  pool: pg.Pool;
  kysely: Kysely<DB>;
  /**
   * Every node of the plan of the first statement `run` sends through `kysely`, explained on
   * `db` (by default `kysely`; a transaction of it to plan under the transaction's settings),
   * run again with `analyze` (and its pages counted) if asked.
   */
  planOf(
    run: () => Promise<unknown>,
    db?: Kysely<DB>,
    /** `statement`: which of the statements `run` sends (0, the first, by default). */
    options?: { analyze?: boolean; statement?: number },
  ): Promise<PlanNode[]>;
  close(): Promise<void>;
}

/**
 * A fresh, migrated PostgreSQL database for query-plan tests. `sessionSql` runs on the
 * connection when it opens (the reports' plan tests price sequential scans and sorts out).
 */
export async function openPlanningDatabase(sessionSql?: string): Promise<PlanningDatabase> {
  const database: TestDatabase = await createTestDatabase('postgres', { migrated: true });
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  if (sessionSql) pool.on('connect', (client) => void client.query(sessionSql).catch(() => {}));
  const queries: CompiledQuery[] = [];
  const kysely = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query') queries.push(event.query);
    },
  });
  return {
    pool,
    kysely,
    async planOf(run, db = kysely, { analyze = false, statement = 0 } = {}) {
      queries.length = 0;
      await run();
      const query = queries[statement];
      const { rows } = await db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        CompiledQuery.raw(
          `explain (${analyze ? 'analyze, buffers, ' : ''}format json) ${query!.sql}`,
          [...query!.parameters],
        ),
      );
      return planNodes(rows[0]!['QUERY PLAN'][0].Plan);
    },
    async close() {
      await kysely.destroy();
      await database.drop();
    },
  };
}
