import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildContext, createApp, createLogger, loadConfig } from '@debrief/server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bootstrapCli,
  type CliServer,
  runCli,
  startCliServer,
} from '../../../../test/harness/cli-process.js';
import { createTestDatabase, type TestDatabase } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { openMigratedDatabase } from '../../src/db/migrate.js';
import { StartupError } from '../../src/errors/startup-error.js';
import { startTrickle, storedIds } from '../support/fault-trickle.js';
import { call } from '../support/http.js';

/**
 * Database faults on SQLite. Stand-ins for faults a test cannot cause for real:
 *
 * - Disk full: RLIMIT_FSIZE lowered on the running `debrief serve` process with prlimit(1):
 *   every write past 4 KiB of a file fails with EFBIG (Node ignores SIGXFSZ), which SQLite
 *   reports as SQLITE_IOERR_WRITE, as it reports ENOSPC as SQLITE_FULL. Raised again = freed.
 * - Read-only file: the tests run as root, for whom chmod blocks nothing, so the immutable
 *   attribute (`chattr +i`, which binds root too) on ext4: SQLite opens such a database file
 *   read-only without an error, as it does a file without write permission, and a write to an
 *   immutable -wal fails as on a file system remounted read-only. Skipped where chattr fails.
 */

/** Whether `chattr +i` works here (root, and a file system that has the attribute). */
function immutableWorks(): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'debrief-chattr-'));
  const file = join(dir, 'probe');
  writeFileSync(file, 'x');
  try {
    execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
    execFileSync('chattr', ['-i', file], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const CHATTR = immutableWorks();
const immutable = (path: string, on: boolean) =>
  execFileSync('chattr', [on ? '+i' : '-i', path], { stdio: 'pipe' });

function prlimitWorks(): boolean {
  try {
    execFileSync('prlimit', ['--pid', String(process.pid), '--fsize'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Start-up in this process; grouping on the main connection (no thread of its own to boot). */
const IN_PROCESS = { groupingThread: false };

async function ready(url: string): Promise<number> {
  return (await call(`${url}/readyz`)).status;
}

describe('SQLite: a full disk (file-size limit on the server process)', () => {
  let database: TestDatabase;
  let server: CliServer | null = null;
  afterEach(async () => {
    if (server) {
      execFileSync('prlimit', ['--pid', String(server.child.pid), '--fsize=unlimited:unlimited']);
      await server.kill('SIGKILL');
    }
    server = null;
    await database?.drop();
  });

  it.runIf(prlimitWorks())(
    'answers 503 with Retry-After, never 201 or 500, is not ready, and recovers when space is back',
    async () => {
      database = await createTestDatabase('sqlite', { migrated: true });
      const env = { DATABASE_URL: database.url, FREE_TIER_MONTHLY_REPORTS: 'unlimited' };
      const tenant = await bootstrapCli(env, { email: 'full@example.test', project: 'Full' });
      server = await startCliServer(env);
      const running = server;
      const pid = String(running.child.pid);

      const before = startTrickle(running.url, tenant.ingest_key);
      await before.waitFor(201, 10, 0, 20_000);
      execFileSync('prlimit', ['--pid', pid, '--fsize=4096:unlimited']);
      const full = Date.now();
      await before.waitFor(503, 10, full, 20_000);
      await before.stop();
      expect(await ready(running.url)).toBe(503);
      // Once the limit is in force (from its first 503 on), nothing is acknowledged.
      const during = before.answers.slice(
        before.answers.findIndex((a) => a.at >= full && a.status === 503),
      );
      expect(during.length).toBeGreaterThanOrEqual(10);
      expect(during.filter((a) => a.status !== 503)).toEqual([]);

      // Space is back. Nobody submits: the writer's probe alone makes it ready again.
      execFileSync('prlimit', ['--pid', pid, '--fsize=unlimited:unlimited']);
      await expect.poll(() => ready(running.url), { timeout: 15_000 }).toBe(200);
      const after = startTrickle(running.url, tenant.ingest_key);
      await after.waitFor(201, 10, 0, 20_000);
      await after.stop();

      expect(running.child.exitCode).toBeNull();
      const answers = [...before.answers, ...after.answers];
      expect(answers.filter((a) => a.status !== 201 && a.status !== 503)).toEqual([]);
      for (const answer of answers.filter((a) => a.status === 503)) {
        expect(answer.code).toBe('service_unavailable');
        expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      }
      // Every 201 is stored, and nothing answered 503 is.
      const acknowledged = answers.filter((a) => a.status === 201).map((a) => a.id!);
      const found = await storedIds(running.url, tenant.project.id, tenant.api_key);
      expect(acknowledged.filter((id) => !found.has(id))).toEqual([]);
      expect(found.size).toBe(acknowledged.length);
    },
    120_000,
  );
});

describe.runIf(CHATTR)('SQLite: a read-only database', () => {
  let server: TestServer | null = null;
  let database: TestDatabase | null = null;
  const locked: string[] = [];
  afterEach(async () => {
    for (const path of locked.splice(0)) immutable(path, false);
    await server?.close();
    server = null;
    await database?.drop();
    database = null;
  });

  it('whose -wal becomes read-only at runtime: 503, not ready, then ready and 201 again', async () => {
    server = await startTestServer('sqlite');
    const t = await server.tenant();
    const submit = () =>
      call(`${server!.url}/v1/reports`, {
        body: { ingest_key: t.ingestKey, outcome: 'failure', details: 'written to a locked file' },
      });
    expect((await submit()).status).toBe(201);

    const wal = `${server.ctx.database.sqlitePath}-wal`;
    immutable(wal, true);
    locked.push(wal);
    const refused = await submit();
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: 'service_unavailable' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(JSON.stringify(refused.body)).not.toContain(wal);
    expect(await ready(server.url)).toBe(503);

    immutable(wal, false);
    locked.pop();
    await expect.poll(() => ready(server!.url), { timeout: 10_000 }).toBe(200);
    expect((await submit()).status).toBe(201);
  });

  it('at start: start-up refuses with the cause instead of claiming ready', async () => {
    database = await createTestDatabase('sqlite');
    await (await openMigratedDatabase(database.url)).database.close();
    immutable(database.url, true);
    locked.push(database.url);
    const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' });
    const log = createLogger(config);
    const failed = await buildContext(config, log, IN_PROCESS).then(
      async (ctx) => {
        await ctx.close();
        return null;
      },
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(StartupError);
    expect((failed as Error).message).toMatch(/readonly|read-only/i);
    expect((failed as Error).message).toContain(database.url);

    // Writable again: the server starts and is ready.
    immutable(database.url, false);
    locked.pop();
    const ctx = await buildContext(config, log, IN_PROCESS);
    const app = await createApp(ctx);
    try {
      expect((await app.inject('/readyz')).statusCode).toBe(200);
    } finally {
      await app.close();
      await ctx.close();
    }
  });
});

describe('SQLite: the database file at its path', () => {
  let database: TestDatabase | null = null;
  let server: CliServer | null = null;
  let restarted: TestServer | null = null;
  afterEach(async () => {
    await server?.kill('SIGKILL');
    server = null;
    await restarted?.close();
    restarted = null;
    await database?.drop();
    database = null;
  });

  it('refuses to start beside an orphaned -wal, and loses nothing once the file is back', async () => {
    database = await createTestDatabase('sqlite', { migrated: true });
    const env = { DATABASE_URL: database.url, FREE_TIER_MONTHLY_REPORTS: 'unlimited' };
    const tenant = await bootstrapCli(env, { email: 'wal@example.test', project: 'Wal' });
    server = await startCliServer(env);
    const trickle = startTrickle(server.url, tenant.ingest_key, { everyMs: 5 });
    await trickle.waitFor(201, 50, 0, 20_000);
    // kill -9: the committed reports are in the -wal, not yet in the database file.
    await server.kill('SIGKILL');
    server = null;
    await trickle.stop();
    const acknowledged = trickle.answers.filter((a) => a.status === 201).map((a) => a.id!);
    expect(existsSync(`${database.url}-wal`)).toBe(true);

    // The file is moved away without its -wal. `debrief serve` is run in this process from
    // here on: what is tested is start-up on the files the killed process left.
    const moved = `${database.url}.moved`;
    renameSync(database.url, moved);
    const refused = await runCli(['serve'], { ...env, LOG_LEVEL: 'silent' }, 'in-process');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${database.url}-wal`);
    expect(refused.stderr).toMatch(/will not create a new database/);
    expect(existsSync(database.url)).toBe(false);

    renameSync(moved, database.url);
    restarted = await startTestServer('sqlite', {}, { databaseUrl: database.url });
    const found = await storedIds(restarted.url, tenant.project.id, tenant.api_key);
    expect(acknowledged.filter((id) => !found.has(id))).toEqual([]);
  }, 120_000);

  it('refuses an orphaned -shm too', async () => {
    database = await createTestDatabase('sqlite');
    writeFileSync(`${database.url}-shm`, '');
    await expect(openMigratedDatabase(database.url)).rejects.toThrow(
      /does not exist, but .*-shm does/,
    );
    expect(existsSync(database.url)).toBe(false);
  });

  it('says loudly when it creates a new database, and not when it opens one', async () => {
    database = await createTestDatabase('sqlite');
    const lines: string[] = [];
    const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'info' });
    const log = createLogger(config, { write: (line: string) => lines.push(line) });
    await (await buildContext(config, log, IN_PROCESS)).close();
    const warned = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
    expect(warned).toHaveLength(1);
    expect(warned[0].msg).toMatch(/NEW, EMPTY SQLite database/);
    expect(warned[0].msg).toContain(database.url);

    lines.length = 0;
    await (await buildContext(config, log, IN_PROCESS)).close();
    expect(lines.join('')).not.toMatch(/NEW, EMPTY/);
  });

  it('is not ready, and logs why, once its file is moved away while it runs', async () => {
    const lines: string[] = [];
    const test = await startTestServer('sqlite');
    try {
      const path = test.ctx.database.sqlitePath!;
      const config = { ...test.ctx.config, logLevel: 'info' as const };
      const app = await createApp(test.ctx, {
        logger: createLogger(config, { write: (line: string) => lines.push(line) }),
      });
      try {
        expect((await app.inject('/readyz')).statusCode).toBe(200);
        renameSync(path, `${path}.elsewhere`);
        const moved = await app.inject('/readyz');
        expect(moved.statusCode).toBe(503);
        expect(moved.json()).toMatchObject({ code: 'service_unavailable' });
        expect(moved.body).not.toContain(path);
        expect(lines.join('\n')).toMatch(/no longer at its path/);
        renameSync(`${path}.elsewhere`, path);
        expect((await app.inject('/readyz')).statusCode).toBe(200);
      } finally {
        await app.close();
      }
    } finally {
      await test.close();
    }
  });
});
