import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../../test/harness/databases.js';
import { newId } from '../../../src/ids.js';
import { insertIssues } from '../../../src/issues/pipeline/grouping.repository.js';
import { listCandidatesOfPairs } from '../../../src/issues/similar/similar.repository.js';
import { openTenantDatabase } from '../../support/seed.js';

/**
 * The list's possible-duplicate flag reads the candidates of a page's (tool, kind) pairs in one
 * statement, compiled once per shape: pairs with and without a tool, in any order, each get
 * their own most recently seen issues, at most `limit`, and the statement kept for one page's
 * shape answers another page of that shape with that page's values.
 */
describe.each(DIALECTS)('candidates of pairs on %s', (dialect) => {
  let opened: Awaited<ReturnType<typeof openTenantDatabase>>;
  beforeAll(async () => {
    opened = await openTenantDatabase(dialect);
  });
  afterAll(() => opened?.close());

  it('reads each pair’s most recent issues, a tool or none', async () => {
    const { db, tenant } = opened;
    const made: Record<string, string[]> = {};
    const keys: [string | null, string][] = [
      [null, 'problem'],
      ['search', 'problem'],
      ['search', 'success'],
      ['fetch', 'problem'],
    ];
    const issues = keys.flatMap(([tool, kind]) =>
      [0, 1, 2].map((i) => {
        const id = newId(Date.UTC(2026, 2, 1, 0, 0, i));
        const key = `${tool}|${kind}`;
        made[key] = [...(made[key] ?? []), id];
        const seen = new Date(Date.UTC(2026, 2, 1, i)).toISOString();
        return {
          id,
          projectId: tenant.projectId,
          title: `${key} ${i}`,
          toolName: tool,
          kind,
          outcome: 'failure',
          signature: '{}',
          firstSeen: seen,
          now: seen,
        };
      }),
    );
    await insertIssues(db, issues);
    const ids = async (pairs: { toolName: string | null; kind: string }[]) =>
      (await listCandidatesOfPairs(db, tenant.projectId, pairs, 2)).map((row) => row.id).sort();
    const newest = (key: string) => made[key]!.slice(1);
    expect(
      await ids([
        { toolName: null, kind: 'problem' },
        { toolName: 'search', kind: 'problem' },
      ]),
    ).toEqual([...newest('null|problem'), ...newest('search|problem')].sort());
    // The same shape (a toolless pair, then one with a tool), other values.
    expect(
      await ids([
        { toolName: null, kind: 'success' },
        { toolName: 'fetch', kind: 'problem' },
      ]),
    ).toEqual(newest('fetch|problem').sort());
    expect(
      await ids([
        { toolName: 'search', kind: 'success' },
        { toolName: null, kind: 'problem' },
      ]),
    ).toEqual([...newest('search|success'), ...newest('null|problem')].sort());
    expect(await ids([])).toEqual([]);
  });
});
