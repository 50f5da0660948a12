import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { createTenant } from '../../../../test/harness/test-server.js';
import {
  announceThrottleEpisodes,
  checkSpikes,
  sendDailyDigests,
  sendReportBatches,
  startNotificationProducers,
} from '../../src/notifications/producers/index.js';
import { openTenantDatabase, seedReport } from '../support/seed.js';
import { minutesAgo, seedIssue } from '../support/seed-issue.js';
import { producerDeps } from './producer-fixtures.js';

const HOUR = 3_600_000;

describe.each(DIALECTS)('notification producers (%s)', (dialect) => {
  let opened: Awaited<ReturnType<typeof openTenantDatabase>>;
  beforeAll(async () => {
    opened = await openTenantDatabase(dialect);
  });
  afterAll(() => opened.close());

  const tenant = () => createTenant({ db: opened.db } as never);

  it('fires issue.spiking once per spike, per destination rule, and again only after calm', async () => {
    const t = await tenant();
    const p = producerDeps(opened.db);
    const now = new Date();
    const strict = p.subscribe('issue.spiking', t.projectId, {
      spike: { min_reports: 10, factor: 5 },
    });
    const high = p.subscribe('issue.spiking', t.projectId, {
      spike: { min_reports: 20, factor: 5 },
    });
    // 12 in the last hour against 14 over the week before (1/12 an hour): spiking.
    const spiking = await seedIssue(opened.db, t.projectId, {
      at: [...minutesAgo(now, 1, 12), ...minutesAgo(now, 3 * 24 * 60, 14)],
    });
    // 12 in the last hour against 3 an hour all week (12 ≤ 5 × 3): busy, not spiking.
    await seedIssue(opened.db, t.projectId, {
      at: [
        ...minutesAgo(now, 1, 12),
        ...Array.from(
          { length: 168 * 3 },
          (_, i) => new Date(now.getTime() - HOUR - 1 - i * 1_200_000),
        ),
      ],
    });
    // Ignored issues never spike.
    await seedIssue(opened.db, t.projectId, { at: minutesAgo(now, 1, 30), status: 'ignored' });

    expect(await checkSpikes(p.deps, now)).toBe(1);
    const [entry, ...rest] = await p.take();
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({
      projectId: t.projectId,
      type: 'issue.spiking',
      issueId: spiking,
      destinationId: strict,
      data: { last_hour: 12, min_reports: 10, factor: 5 },
    });
    expect(entry?.destinationId).not.toBe(high);
    // Still spiking a minute later: not again.
    expect(await checkSpikes(p.deps, new Date(now.getTime() + 60_000))).toBe(0);
    // Two hours later the hour is empty and the rule has not held for an hour: calmed.
    expect(await checkSpikes(p.deps, new Date(now.getTime() + 2 * HOUR))).toBe(0);
    const later = new Date(now.getTime() + 3 * HOUR);
    await opened.db
      .insertInto('report_issues')
      .values(
        minutesAgo(later, 1, 15).map((at, i) => ({
          report_id: `${spiking.slice(0, 24)}${String(90000000 + i)}`,
          project_id: t.projectId,
          created_at: at.toISOString(),
          issue_id: spiking,
          issue_reason: 'test',
        })),
      )
      .execute();
    await opened.db
      .updateTable('issues')
      .set({ last_seen: later.toISOString() })
      .where('id', '=', spiking)
      .execute();
    expect(await checkSpikes(p.deps, later)).toBe(1);
    expect((await p.take()).map((e) => e.issueId)).toEqual([spiking]);
  });

  it('sums report.created into one message a minute per destination, by its filter', async () => {
    const t = await tenant();
    const p = producerDeps(opened.db);
    const start = new Date(Date.now() - 10 * 60_000);
    const failures = p.subscribe('report.created', t.projectId, { filter: { outcome: 'failure' } });
    const all = p.subscribe('report.created', t.projectId);
    // Same filter as `failures`: the pass reads their range once, and each gets its message.
    const failuresToo = p.subscribe('report.created', t.projectId, {
      filter: { outcome: 'failure' },
    });
    // The first pass only places the cursors: a new destination hears of what comes after it.
    await seedReport(opened.db, t.projectId, {
      outcome: 'failure',
      at: new Date(start.getTime() - 30_000).toISOString(),
    });
    expect(await sendReportBatches(p.deps, start)).toBe(0);
    for (let i = 0; i < 7; i++)
      await seedReport(opened.db, t.projectId, {
        outcome: 'failure',
        at: new Date(start.getTime() + 1000 + i).toISOString(),
        details: `failure ${i}`,
      });
    await seedReport(opened.db, t.projectId, {
      outcome: 'success',
      at: new Date(start.getTime() + 2000).toISOString(),
    });
    expect(await sendReportBatches(p.deps, new Date(start.getTime() + 15_000))).toBe(3);
    const first = await p.take();
    const toFailures = first.find((e) => e.destinationId === failures)!;
    expect(toFailures.type).toBe('report.created');
    expect(toFailures.data?.count).toBe(7);
    const reports = toFailures.data?.reports as { details: string }[];
    expect(reports.map((r) => r.details)).toEqual([0, 1, 2, 3, 4].map((i) => `failure ${i}`));
    expect(toFailures.reportId).toBeDefined();
    expect(first.find((e) => e.destinationId === all)?.data?.count).toBe(8);
    expect(first.find((e) => e.destinationId === failuresToo)?.data).toEqual(toFailures.data);
    // Within the minute: held back, then summed into the next.
    await seedReport(opened.db, t.projectId, {
      outcome: 'failure',
      at: new Date(start.getTime() + 20_000).toISOString(),
    });
    await seedReport(opened.db, t.projectId, {
      outcome: 'failure',
      at: new Date(start.getTime() + 40_000).toISOString(),
    });
    expect(await sendReportBatches(p.deps, new Date(start.getTime() + 60_000))).toBe(0);
    expect(await sendReportBatches(p.deps, new Date(start.getTime() + 80_000))).toBe(3);
    expect((await p.take()).map((e) => e.data?.count)).toEqual([2, 2, 2]);
    expect(await sendReportBatches(p.deps, new Date(start.getTime() + 200_000))).toBe(0);
  });

  it('announces the start of each throttle episode only', async () => {
    const t = await tenant();
    const p = producerDeps(opened.db);
    p.subscribe('ingest.throttled', t.projectId);
    const now = new Date();
    const row = (address: string, reason: string) => ({
      projectId: t.projectId,
      day: now.toISOString().slice(0, 10),
      address,
      reason,
      count: 3,
    });
    const rows = [
      row('203.0.113.9', 'address_rate'),
      row('203.0.113.10', 'key_rate'),
      row('203.0.113.11', 'key_rate'),
    ];
    expect(await announceThrottleEpisodes(p.deps, rows, now)).toBe(2);
    expect(await announceThrottleEpisodes(p.deps, rows, new Date(now.getTime() + 60_000))).toBe(0);
    // 31 minutes later without a refusal in between: a new episode.
    expect(
      await announceThrottleEpisodes(
        p.deps,
        rows.slice(0, 1),
        new Date(now.getTime() + 32 * 60_000),
      ),
    ).toBe(1);
    const entries = await p.take();
    expect(entries.map((e) => e.data)).toEqual([
      { reason: 'address_rate', address: '203.0.113.9', refused: 3 },
      { reason: 'key_rate', address: null, refused: 6 },
      { reason: 'address_rate', address: '203.0.113.9', refused: 3 },
    ]);
  });

  it('sends the daily digest of the day before at the destination hour, once', async () => {
    const t = await tenant();
    const p = producerDeps(opened.db);
    const destination = p.subscribe('digest.daily', t.projectId, { digestHour: 7 });
    const today = new Date();
    today.setUTCHours(0, 0, 0, 0);
    const yesterday = (h: number) => new Date(today.getTime() - 24 * HOUR + h * HOUR);
    const created = await seedIssue(opened.db, t.projectId, {
      at: [yesterday(3), yesterday(4), yesterday(5)],
      title: 'new <b>one</b>',
    });
    const old = await seedIssue(opened.db, t.projectId, {
      at: [new Date(today.getTime() - 5 * 24 * HOUR), yesterday(6)],
      regressedAt: yesterday(6),
    });
    await seedReport(opened.db, t.projectId, {
      outcome: 'failure',
      at: yesterday(2).toISOString(),
    });
    await seedReport(opened.db, t.projectId, {
      outcome: 'success',
      at: yesterday(2).toISOString(),
    });
    expect(await sendDailyDigests(p.deps, new Date(today.getTime() + 6 * HOUR))).toBe(0);
    expect(await sendDailyDigests(p.deps, new Date(today.getTime() + 7 * HOUR + 60_000))).toBe(1);
    expect(await sendDailyDigests(p.deps, new Date(today.getTime() + 9 * HOUR))).toBe(0);
    const [digest] = await p.take();
    expect(digest).toMatchObject({ type: 'digest.daily', destinationId: destination });
    const data = digest?.data as Record<string, { id: string; count?: number }[]> & {
      outcome_rates: Record<string, number>;
    };
    expect(data.new_issues?.map((i) => i.id)).toEqual([created]);
    expect(data.regressed_issues?.map((i) => i.id)).toEqual([old]);
    expect(data.busiest_issues?.map((i) => [i.id, i.count])).toEqual([
      [created, 3],
      [old, 1],
    ]);
    expect(data.outcome_rates).toMatchObject({ failure: 0.5, success: 0.5 });
    expect(await sendDailyDigests(p.deps, new Date(today.getTime() + 31 * HOUR))).toBe(1);
    await p.take();
  });

  it('runs the passes on their own schedule and stops cleanly', async () => {
    const t = await tenant();
    const p = producerDeps(opened.db);
    p.subscribe('report.created', t.projectId);
    const start = Date.now();
    // Stored before the first pass, which places the cursor 10 s before `start`.
    await seedReport(opened.db, t.projectId, {
      outcome: 'failure',
      at: new Date(start + 1000).toISOString(),
    });
    // A clock that moves a minute per pass, so each pass may send.
    let pass = 0;
    const producers = startNotificationProducers(p.deps, {
      log: { warn: () => {} },
      minuteMs: 60_000,
      reportPassMs: 20,
      now: () => new Date(start + pass++ * 60_000),
    });
    let entries: Awaited<ReturnType<typeof p.take>> = [];
    for (let i = 0; i < 1000 && entries.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      entries = await p.take();
    }
    await producers.close();
    expect(entries.map((e) => [e.type, e.data?.count])).toEqual([['report.created', 1]]);
  });
});
