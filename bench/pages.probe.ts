/**
 * A short probe of the report list's ROWS query (issue 17 item 4), in process, without HTTP:
 * seeds a SQLite file or PostgreSQL database once, then times listReportsPage for the deep and
 * filtered pages the issue names, and the same pages after a cursor. Not part of `npm run
 * bench` (its read scenarios are the end-to-end figures); run it by hand:
 *   npx tsx bench/pages.probe.ts seed <file|postgres-url> [count]
 *   npx tsx bench/pages.probe.ts migrate <file|postgres-url>
 *   npx tsx bench/pages.probe.ts measure <file|postgres-url>
 */
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { isPostgresUrl } from '../packages/server/src/db/database.js';
import { openMigratedDatabase } from '../packages/server/src/db/migrate.js';
import type { DB } from '../packages/server/src/db/schema.js';
import {
  listReportsPage,
  type ReportFilters,
  type ReportKey,
} from '../packages/server/src/reports/report.repository.js';
import { SOURCES, seedReports, TOOL_NAMES } from './seed.js';

const PROJECT = 'p'.repeat(32);
const ACCOUNT = 'a'.repeat(32);
const RUNS = 21;
const [, , command, url, countArg] = process.argv;
if (!url || !['seed', 'migrate', 'measure'].includes(command ?? '')) {
  console.error('usage: pages.probe.ts seed|migrate|measure <url> [count]');
  process.exit(2);
}

if (command === 'seed' || command === 'migrate') {
  const { database } = await openMigratedDatabase(url);
  if (command === 'seed') {
    const now = new Date().toISOString();
    await database.kysely
      .insertInto('accounts')
      .values({ id: ACCOUNT, email: 'probe@example.test', created_at: now } as never)
      .execute();
    await database.kysely
      .insertInto('projects')
      .values({ id: PROJECT, account_id: ACCOUNT, name: 'probe', created_at: now } as never)
      .execute();
  }
  await database.close();
  if (command === 'seed') await seedReports(url, PROJECT, Number(countArg ?? 300_000));
  process.exit(0);
}

// Measured as it stands: no migration on open.
const dialect = isPostgresUrl(url) ? 'postgres' : 'sqlite';
const db = new Kysely<DB>({
  dialect:
    dialect === 'postgres'
      ? new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) })
      : new SqliteDialect({ database: new SQLite(url, { readonly: true }) }),
});

const weekAgo = new Date(Date.now() - 7 * 86_400_000);
const tool = TOOL_NAMES[4]!;
const source = SOURCES[1]!;
const scenarios: [string, ReportFilters, number, number][] = [
  ['page 1, no filter', {}, 1, 50],
  ['page 500, limit 100', {}, 500, 100],
  // At 1M the page 50 is a third of the way into tool X's ~6,700 failures; at 300k
  // (~2,000 of them) page 15 is as deep, page 40 is the end.
  ['outcome=failure&tool_name=X page 15', { outcome: 'failure', toolName: tool }, 15, 50],
  ['outcome=failure&tool_name=X page 40', { outcome: 'failure', toolName: tool }, 40, 50],
  ['source=S&from=<7 days ago>', { source, from: weekAgo }, 1, 50],
  ['tool_name=X&source=S page 20', { toolName: tool, source }, 20, 50],
  [
    'outcome&tool&source&from page 1',
    { outcome: 'gave_up', toolName: tool, source, from: weekAgo },
    1,
    50,
  ],
  [
    'outcome=request&to=<30 days ago> page 100',
    { outcome: 'request', before: new Date(Date.now() - 30 * 86_400_000) },
    100,
    50,
  ],
];

async function timed(run: () => Promise<unknown[]>): Promise<string> {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    rows = (await run()).length;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(1).padStart(6);
  return `rows ${String(rows).padStart(3)} min ${f(times[0]!)} median ${f(times[RUNS >> 1]!)} max ${f(times[RUNS - 1]!)} ms`;
}

for (const [name, filters, page, limit] of scenarios) {
  const offset = (page - 1) * limit;
  console.log(
    `${name.padEnd(44)} ${await timed(() => listReportsPage(db, dialect, PROJECT, filters, { offset, limit }))}`,
  );
  if (offset === 0) continue;
  // The same page after a cursor: the key of the report before it.
  const [before] = await listReportsPage(db, dialect, PROJECT, filters, {
    offset: offset - 1,
    limit: 1,
  });
  if (!before) continue;
  const createdAt = before.created_at;
  const after: ReportKey = {
    createdAt: typeof createdAt === 'string' ? createdAt : createdAt.toISOString(),
    id: before.id,
  };
  console.log(
    `${'  …the same page after a cursor'.padEnd(44)} ${await timed(() => listReportsPage(db, dialect, PROJECT, filters, { after, limit }))}`,
  );
}
await db.destroy();
