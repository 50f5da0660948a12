import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteConnection } from '../../../src/db/sqlite-connection.js';
import { startWalCheckpointer } from '../../../src/reports/write-path/sqlite/wal-checkpointer.js';

/**
 * The report writer's checkpoint thread (wal-checkpointer.ts): while a connection commits and
 * never checkpoints, the thread copies what the WAL holds into the file, and the next commit
 * after it has copied everything starts the WAL over instead of growing it. A thread that fails
 * says why, for the server's log.
 */
describe('WAL checkpoint thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'debrief-checkpoint-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('copies committed pages into the file beside a writer that never checkpoints', async () => {
    const path = join(dir, 'a.db');
    const writer = openSqliteConnection(path);
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('create table t (id integer primary key, body text not null)');
    const insert = writer.prepare('insert into t (body) values (?)');
    const commit = writer.transaction((n: number) => {
      for (let i = 0; i < n; i++) insert.run('x'.repeat(1000));
    });
    commit(2000);
    const fileBefore = statSync(path).size;
    const walBefore = statSync(`${path}-wal`).size;
    expect(walBefore).toBeGreaterThan(2_000_000);

    const checkpointer = startWalCheckpointer(path, { intervalMs: 10 });
    try {
      // The ~2 MB of rows reach the file.
      await expect
        .poll(() => statSync(path).size, { timeout: 10_000 })
        .toBeGreaterThan(fileBefore + 1_900_000);
      // Copied through, so a commit starts the WAL over: it no longer grows.
      for (let round = 0; round < 20; round++) {
        await new Promise((resolve) => setTimeout(resolve, 30));
        commit(200);
      }
      expect(statSync(`${path}-wal`).size).toBeLessThanOrEqual(walBefore);
      expect(writer.prepare('select count(*) as n from t').get()).toEqual({ n: 6000 });
    } finally {
      await checkpointer.close();
      writer.close();
    }
  });

  it('says why when its thread fails (here: no file to open), and once', async () => {
    const reasons: string[] = [];
    const checkpointer = startWalCheckpointer(join(dir, 'missing.db'), {
      intervalMs: 10,
      onFailure: (reason) => reasons.push(reason),
    });
    await expect.poll(() => reasons.length, { timeout: 10_000 }).toBe(1);
    expect(reasons[0]).toMatch(/^the WAL checkpoint thread failed: .+/);
    await checkpointer.close();
    expect(reasons).toHaveLength(1);
  });

  it('closes its thread and connection when asked, even before a first checkpoint', async () => {
    const path = join(dir, 'b.db');
    const owner = openSqliteConnection(path);
    owner.exec('create table t (id integer primary key)');
    const checkpointer = startWalCheckpointer(path, { intervalMs: 60_000 });
    await checkpointer.close();
    await checkpointer.close();
    owner.close();
  });
});
