import type { Kysely } from 'kysely';
import { bindIds, boundIds, compiledShapes } from '../../db/compiled-shapes.js';
import type { DB } from '../../db/schema.js';
import { SUMMARY_COLUMNS } from '../issue.repository.js';

/** The SQL of similar-issue suggestions: the candidates, and the pairs a developer rejected. */

/**
 * The issues an issue could be a duplicate of: the project's issues of the same tool and kind
 * (the grouping engine compares nothing else), most recently seen first, at most `limit`.
 */
export async function listSimilarCandidates(
  db: Kysely<DB>,
  projectId: string,
  toolName: string | null,
  kind: string,
  limit: number,
) {
  return db
    .selectFrom('issues')
    .select([...SUMMARY_COLUMNS, 'signature'])
    .where('project_id', '=', projectId)
    .where('tool_name', toolName === null ? 'is' : '=', toolName)
    .where('kind', '=', kind)
    .orderBy('last_seen', 'desc')
    .limit(limit)
    .execute();
}

/**
 * The statement of listCandidatesOfPairs, compiled once per shape (db/compiled-shapes.ts): the
 * pairs' count and which of them have no tool (`is null`). A page of 50 pairs, one union of 50
 * parts, cost ~2.3 ms of the event loop built and compiled by the query builder on every read
 * and ~1.3 compiled once (SQLite, the read bench's 1,000,000 reports; medians of 6 rounds).
 */
const candidatesOfPairs = compiledShapes(
  (db: Kysely<DB>, shape: { toolless: boolean[]; limit: number }, p: Record<string, string>) => {
    const parts = shape.toolless.map((toolless, i) =>
      db
        .selectFrom(
          db
            .selectFrom('issues')
            .select(['id', 'tool_name', 'kind', 'signature', 'report_count'])
            .where('project_id', '=', p.project as string)
            .where('tool_name', toolless ? 'is' : '=', toolless ? null : (p[`t${i}`] as string))
            .where('kind', '=', p[`k${i}`] as string)
            .orderBy('last_seen', 'desc')
            .limit(shape.limit)
            .as(`s${i}`),
        )
        .selectAll(),
    );
    const [first, ...rest] = parts as [(typeof parts)[number], ...typeof parts];
    return rest.reduce((q, part) => q.unionAll(part), first);
  },
);

/** The candidates of several (tool, kind) pairs of a project at once: for a page of the list. */
export async function listCandidatesOfPairs(
  db: Kysely<DB>,
  projectId: string,
  pairs: readonly { toolName: string | null; kind: string }[],
  limit: number,
) {
  if (pairs.length === 0) return [];
  const params: Record<string, string> = { project: projectId };
  pairs.forEach((pair, i) => {
    if (pair.toolName !== null) params[`t${i}`] = pair.toolName;
    params[`k${i}`] = pair.kind;
  });
  const shape = { toolless: pairs.map((pair) => pair.toolName === null), limit };
  return (await db.executeQuery(candidatesOfPairs(db, shape, params))).rows;
}

/** The kind, tool and signature of some issues of a page, for listCandidatesOfPairs. */
export async function listIssueKinds(db: Kysely<DB>, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return (await db.executeQuery(issueKinds(db, ids.length, bindIds(ids)))).rows;
}

const issueKinds = compiledShapes((db: Kysely<DB>, count: number, p: Record<string, string>) =>
  db
    .selectFrom('issues')
    .select(['id', 'tool_name', 'kind', 'signature'])
    .where('id', 'in', boundIds(count, p)),
);

/** The issues a developer said are not the same problem as one of `ids`. */
export async function listRejectedPairs(
  db: Kysely<DB>,
  projectId: string,
  ids: readonly string[],
): Promise<{ issue_a: string; issue_b: string }[]> {
  if (ids.length === 0) return [];
  const params = bindIds(ids, { project: projectId });
  return (await db.executeQuery(rejectedPairs(db, ids.length, params))).rows;
}

const rejectedPairs = compiledShapes((db: Kysely<DB>, count: number, p: Record<string, string>) =>
  db
    .selectFrom('similar_rejections')
    .select(['issue_a', 'issue_b'])
    .where('project_id', '=', p.project as string)
    .where((eb) =>
      eb.or([eb('issue_a', 'in', boundIds(count, p)), eb('issue_b', 'in', boundIds(count, p))]),
    ),
);

export async function insertRejection(
  db: Kysely<DB>,
  projectId: string,
  a: string,
  b: string,
  now: Date,
): Promise<void> {
  const [first, second] = a < b ? [a, b] : [b, a];
  await db
    .insertInto('similar_rejections')
    .values({
      project_id: projectId,
      issue_a: first,
      issue_b: second,
      created_at: now.toISOString(),
    })
    .onConflict((oc) => oc.columns(['project_id', 'issue_a', 'issue_b']).doNothing())
    .execute();
}
