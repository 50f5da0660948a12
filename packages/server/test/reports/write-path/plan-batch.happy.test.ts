import { describe, expect, it } from 'vitest';
import type { IngestTarget } from '../../../src/keys/ingest-key-lookup.js';
import {
  counterId,
  counterRowsToRead,
  planBatch,
} from '../../../src/reports/write-path/plan-batch.js';
import { submission } from '../../support/submissions.js';

/**
 * The write path's rules (reports/write-path/plan-batch.ts), pure: both back ends run them, so
 * the quota, caps and counters are checked here once, without a database.
 */
const defaults = { freeTier: 1000, addressDailyShare: 100 };
const KEY_A = `wk_${'a'.repeat(32)}`;
const KEY_B = `wk_${'b'.repeat(32)}`;
const target = (key: string, fields: Partial<IngestTarget> = {}): IngestTarget => ({
  ingest_key: key,
  project_id: `project-${key.slice(3, 4)}`,
  account_id: 'account-1',
  monthly_quota: null,
  quota_unlimited: 0,
  monthly_cap: null,
  address_daily_share: null,
  ...fields,
});

describe('planBatch', () => {
  it('stores in order exactly what the account has left, counting its own reports', () => {
    const targets = new Map([[KEY_A, target(KEY_A, { monthly_quota: 10 })]]);
    const batch = Array.from({ length: 5 }, () => submission(KEY_A));
    const month = batch[0]!.month;
    const used = new Map([[counterId('usage_counters', ['account-1', month]), 8]]);
    const plan = planBatch(batch, targets, used, defaults);
    expect(plan.outcomes.map((o) => o.status)).toEqual([
      'stored',
      'stored',
      'quota_exceeded',
      'quota_exceeded',
      'quota_exceeded',
    ]);
    expect(plan.reports.map((r) => r.id)).toEqual([batch[0]!.report.id, batch[1]!.report.id]);
    expect(plan.counters).toContainEqual(
      expect.objectContaining({ table: 'usage_counters', key: ['account-1', month], added: 2 }),
    );
  });

  it('answers an unknown key, a project cap and an address share, and aggregates the counters', () => {
    const targets = new Map([
      [KEY_A, target(KEY_A, { monthly_cap: 1 })],
      [KEY_B, target(KEY_B, { monthly_quota: 100, address_daily_share: 2 })],
    ]);
    const batch = [
      submission(KEY_A, { toolName: 'search' }),
      submission(KEY_A, { toolName: 'search' }),
      submission(`wk_${'0'.repeat(32)}`),
      submission(KEY_B, { toolName: 'search' }),
      submission(KEY_B, { toolName: 'search' }),
      submission(KEY_B, { toolName: 'search' }),
    ];
    const plan = planBatch(batch, targets, new Map(), defaults);
    expect(plan.outcomes).toEqual([
      { status: 'stored', projectId: 'project-a' },
      { status: 'project_cap', projectId: 'project-a', limit: 1 },
      { status: 'unknown_key' },
      { status: 'stored', projectId: 'project-b' },
      { status: 'stored', projectId: 'project-b' },
      { status: 'address_daily', projectId: 'project-b', limit: 2 },
    ]);
    const month = batch[0]!.month;
    const byTable = (table: string) =>
      plan.counters.filter((c) => c.table === table).map((c) => [c.key, c.added]);
    // One account: its month counts all three stored reports.
    expect(byTable('usage_counters')).toEqual([[['account-1', month], 3]]);
    expect(byTable('project_usage')).toEqual([[['project-a', month], 1]]);
    expect(byTable('report_counts')).toEqual([
      [['project-a', 'search', '', 'success'], 1],
      [['project-b', 'search', '', 'success'], 2],
    ]);
    // Every counter row once, in the lock order of every writer: the limit counters first.
    const limits = ['address_usage', 'project_usage', 'usage_counters'];
    const tables = plan.counters.map((c) => c.table);
    expect(tables.slice(0, 3)).toEqual(limits);
    expect(tables.slice(3).some((table) => limits.includes(table))).toBe(false);
    const rest = plan.counters.slice(3).map((c) => counterId(c.table, c.key));
    expect(rest).toEqual([...rest].sort());
  });

  it('names the limit counter rows to read once each, sorted, and none for unknown keys', () => {
    const targets = new Map([[KEY_A, target(KEY_A, { monthly_cap: 5, monthly_quota: 50 })]]);
    const batch = [submission(KEY_A), submission(KEY_A), submission(`wk_${'0'.repeat(32)}`)];
    const rows = counterRowsToRead(batch, targets, defaults);
    expect(rows.map((r) => r.table)).toEqual(['project_usage', 'usage_counters']);
    const ids = rows.map((r) => counterId(r.table, r.key));
    expect(ids).toEqual([...ids].sort());
  });

  it("counts an unlimited account's month without reading it, and locks it before the reports' counters", () => {
    const targets = new Map([[KEY_A, target(KEY_A, { quota_unlimited: 1 })]]);
    const batch = [submission(KEY_A), submission(KEY_A)];
    expect(counterRowsToRead(batch, targets, defaults)).toEqual([]);
    const plan = planBatch(batch, targets, new Map(), defaults);
    expect(plan.outcomes.map((o) => o.status)).toEqual(['stored', 'stored']);
    expect(plan.counters[0]).toEqual(
      expect.objectContaining({ table: 'usage_counters', added: 2 }),
    );
    expect(plan.counters.slice(1).every((c) => c.table.startsWith('report_'))).toBe(true);
  });

  it('names the quota marks a month is at or past once per batch, and whether the batch passed them', () => {
    const plan = (used: number, size: number, fields: Partial<IngestTarget> = {}) => {
      const batch = Array.from({ length: size }, () => submission(KEY_A));
      const month = batch[0]!.month;
      const counts = new Map([[counterId('usage_counters', ['account-1', month]), used]]);
      const targets = new Map([[KEY_A, target(KEY_A, { monthly_quota: 10, ...fields })]]);
      return planBatch(batch, targets, counts, defaults).crossings.map((c) => [
        c.threshold,
        c.passed,
        c.used,
      ]);
    };
    expect(plan(5, 2)).toEqual([]);
    expect(plan(7, 1)).toEqual([['warning', 'now', 8]]);
    expect(plan(8, 1)).toEqual([['warning', 'before', 9]]);
    expect(plan(9, 3)).toEqual([
      ['warning', 'before', 10],
      ['reached', 'now', 10],
    ]);
    expect(plan(7, 5)).toEqual([
      ['warning', 'now', 10],
      ['reached', 'now', 10],
    ]);
    // Past a quota lowered below the month's count: every report refused, both marks standing.
    expect(plan(12, 2)).toEqual([
      ['warning', 'before', 12],
      ['reached', 'before', 12],
    ]);
    expect(plan(9_000, 5, { quota_unlimited: 1 })).toEqual([]);
    expect(plan(0, 1, { monthly_quota: 0 })).toEqual([]);
  });
});
