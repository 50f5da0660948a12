import type { Kysely, Migration } from 'kysely';

/**
 * Every combination of the list filters (`outcome`, `tool_name`, `source`,
 * `from`, `to`) is a seek in (created_at desc, id desc) order that never reads a table row it
 * will not return (reports/report-page.ts).
 *
 * The three label indexes stay three (one index write each per report), and each carries the
 * other two labels after (created_at, id). A page seeks on one label and its date
 * range, and checks the other labels inside the index entries: the skipped rows of a deep page,
 * and the rows a second label rules out, cost an index entry each, not a table row. Eight
 * indexes, one per label combination, would make every combination an exact seek but cost five
 * more index writes per report on every insert; the label the page seeks on is chosen as the
 * most selective one (tool_name, then source, then outcome) so the entries checked and dropped
 * stay few. The time index (project_id, created_at, id, outcome) is unchanged: no label filter.
 *
 * Rebuilding three indexes takes a few seconds per million reports, once, at start-up.
 */
export function reportPageIndexesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const indexes: [string, string[]][] = [
        [
          'reports_by_project_outcome',
          ['project_id', 'outcome', 'created_at', 'id', 'tool_name', 'source'],
        ],
        [
          'reports_by_project_tool',
          ['project_id', 'tool_name', 'created_at', 'id', 'outcome', 'source'],
        ],
        [
          'reports_by_project_source',
          ['project_id', 'source', 'created_at', 'id', 'outcome', 'tool_name'],
        ],
      ];
      for (const [name, columns] of indexes) {
        await db.schema.dropIndex(name).execute();
        await db.schema.createIndex(name).on('reports').columns(columns).execute();
      }
    },
  };
}
