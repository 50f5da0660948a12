import { fdatasync, fstatSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteConnection } from '../../../src/db/sqlite-connection.js';
import {
  createWalSync,
  type Fdatasync,
  type WalSync,
} from '../../../src/reports/write-path/sqlite/wal-sync.js';

/**
 * The fsync of the writer's commits under SQLITE_SYNC=normal (wal-sync.ts), on a real SQLite
 * file in WAL mode with `synchronous = NORMAL`, as the writer thread has it. Every fsync is the
 * real one; the tests record which file each was for, and may hold one back to see what
 * happens meanwhile.
 */
describe('WAL sync', () => {
  const MS = 40;
  let dir: string;
  let path: string;
  let walPath: string;
  let sqlite: SQLite.Database;
  let walSync: WalSync | null;
  /** The inode each fsync was for, in order. */
  let synced: number[];
  let failures: Error[];
  /** Set to hold the next fsync's callback until called. */
  let hold: ((release: () => void) => void) | null;

  const recordingSync: Fdatasync = (fd, callback) => {
    synced.push(fstatSync(fd).ino);
    fdatasync(fd, (error) => {
      if (hold) {
        const held = hold;
        hold = null;
        held(() => callback(error));
      } else callback(error);
    });
  };

  function open(): SQLite.Database {
    const db = openSqliteConnection(path);
    db.pragma('synchronous = NORMAL');
    db.exec('create table if not exists t (n integer)');
    return db;
  }

  function start(sync: Fdatasync = recordingSync): WalSync {
    walSync = createWalSync(walPath, MS, (error) => failures.push(error), sync);
    return walSync;
  }

  const commit = () => sqlite.prepare('insert into t (n) values (1)').run();
  const walInode = () => statSync(walPath).ino;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'debrief-wal-sync-'));
    path = join(dir, 'test.db');
    walPath = `${path}-wal`;
    sqlite = open();
    walSync = null;
    synced = [];
    failures = [];
    hold = null;
  });
  afterEach(() => {
    walSync?.close();
    if (sqlite.open) sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fsyncs the WAL once for every commit made before', async () => {
    const sync = start();
    for (let i = 0; i < 5; i++) {
      commit();
      sync.committed();
    }
    expect(synced).toEqual([]);
    await expect.poll(() => synced, { timeout: 10_000, interval: 5 }).toEqual([walInode()]);
    await pause(3 * MS);
    expect(synced).toHaveLength(1);
    expect(failures).toEqual([]);
  });

  it('gives a commit made during an fsync an fsync of its own', async () => {
    const sync = start();
    let release: () => void = () => {};
    const heldBack = new Promise<void>((resolve) => {
      hold = (r) => {
        release = r;
        resolve();
      };
    });
    commit();
    sync.committed();
    await heldBack;
    commit();
    sync.committed();
    await pause(3 * MS);
    expect(synced).toHaveLength(1);
    release();
    await expect.poll(() => synced.length, { timeout: 10_000, interval: 5 }).toBe(2);
  });

  it('fsyncs a WAL that SQLite deleted and made anew', async () => {
    const sync = start();
    commit();
    sync.committed();
    await expect.poll(() => synced.length, { timeout: 10_000, interval: 5 }).toBe(1);
    const first = walInode();
    // The last connection closing deletes the WAL; the next one writes a new file.
    sqlite.close();
    sqlite = open();
    commit();
    sync.committed();
    await expect.poll(() => synced.length, { timeout: 10_000, interval: 5 }).toBe(2);
    expect(synced[1]).toBe(walInode());
    expect(synced[1]).not.toBe(first);
  });

  it('does nothing while there is no WAL, and nothing after close()', async () => {
    const none = createWalSync(
      join(dir, 'unwritten.db-wal'),
      MS,
      (e) => failures.push(e),
      recordingSync,
    );
    none.committed();
    await pause(3 * MS);
    expect(synced).toEqual([]);

    const sync = start();
    commit();
    sync.committed();
    sync.close();
    walSync = null;
    await pause(3 * MS);
    expect(synced).toEqual([]);
    expect(failures).toEqual([]);
  });

  it('tells of an fsync that fails', async () => {
    const sync = start((_fd, callback) => {
      const error = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
      setImmediate(() => callback(error));
    });
    commit();
    sync.committed();
    await expect.poll(() => failures.map((e) => e.message)).toEqual(['EIO: i/o error, fdatasync']);
  });
});
