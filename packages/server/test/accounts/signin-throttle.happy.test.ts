import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import { FailureCounter } from '../../src/accounts/failure-counter.js';
import { SignupThrottle } from '../../src/accounts/signup-throttle.js';
import type { Database } from '../../src/db/database.js';
import { openMigratedDatabase } from '../../src/db/migrate.js';

/**
 * The sign-in and sign-up slow-down, kept in the database (migration 0012) so that every
 * instance shares it. Times are given explicitly: the policy is checked, not the clock.
 */
describe.each(DIALECTS)('FailureCounter (sign-in slow-down) on %s', (dialect) => {
  const options = { freeFailures: 5, windowMs: 15 * 60_000, baseDelayMs: 30_000 };
  let testDb: TestDatabase;
  let database: Database;
  let n = 0;
  // A scope per test: the tests share one database but never a counter.
  const counter = () => new FailureCounter(database.kysely, `test_${n++}`, options);

  beforeAll(async () => {
    testDb = await createTestDatabase(dialect);
    database = (await openMigratedDatabase(testDb.url)).database;
  });
  afterAll(async () => {
    await database?.close();
    await testDb?.drop();
  });

  it('lets 5 failures through, then doubles the wait with each further failure', async () => {
    const c = counter();
    const t0 = 1_000_000;
    for (let i = 0; i < 5; i++) expect(await c.attempt('k', t0)).toBe(0);
    expect(await c.attempt('k', t0)).toBe(30_000);
    // A refused try is not counted: the wait does not grow while locked.
    expect(await c.attempt('k', t0 + 10_000)).toBe(20_000);
    expect(await c.attempt('k', t0 + 30_000)).toBe(0);
    expect(await c.attempt('k', t0 + 30_000)).toBe(60_000);
    expect(await c.attempt('k', t0 + 90_000)).toBe(0);
    expect(await c.attempt('k', t0 + 90_000)).toBe(120_000);
  });

  it('caps the wait at the window and forgets a key after a quiet window', async () => {
    const c = counter();
    let t = 0;
    let wait = 0;
    // Each try as soon as the lockout ends: 30 s, 60 s, … up to the 15-minute window.
    for (let tries = 0; wait < options.windowMs && tries < 50; tries++) {
      wait = await c.attempt('k', t);
      t += wait;
    }
    expect(wait).toBe(options.windowMs);
    expect(await c.attempt('k', t)).toBe(0);
    expect(await c.attempt('k', t)).toBe(options.windowMs);
    const quiet = t + options.windowMs + 1;
    expect(await c.attempt('k', quiet)).toBe(0);
    expect(await c.attempt('k', quiet)).toBe(0);
  });

  it('keeps keys apart, resets a key, and counts concurrent tries exactly', async () => {
    const c = counter();
    for (let i = 0; i < 5; i++) await c.attempt('a', 0);
    expect(await c.attempt('a', 0)).toBeGreaterThan(0);
    expect(await c.attempt('b', 0)).toBe(0);
    await c.reset('a');
    expect(await c.attempt('a', 0)).toBe(0);

    // 20 tries at once: exactly the 5 free ones go ahead.
    const waits = await Promise.all(Array.from({ length: 20 }, () => c.attempt('burst', 0)));
    expect(waits.filter((w) => w === 0)).toHaveLength(5);
  });

  it('stores keys hashed and prunes counters whose window has passed', async () => {
    const c = counter();
    await c.attempt('someone@example.test\n203.0.113.9', 0);
    const rows = await database.kysely.selectFrom('auth_failures').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain('example.test');
    expect(JSON.stringify(rows)).not.toContain('203.0.113.9');
    // A fresh counter prunes on its first try; a day later every window above has passed.
    await counter().attempt('x', 24 * 3_600_000);
    const left = await database.kysely.selectFrom('auth_failures').select('key').execute();
    expect(left).toHaveLength(1);
  });

  it('sign-ups: perHour go through, then a wait of a minute', async () => {
    const throttle = new SignupThrottle(database.kysely, 3);
    const ip = `198.51.100.${n++}`;
    for (let i = 0; i < 3; i++) expect(await throttle.attempt(ip, 0)).toBe(0);
    expect(await throttle.attempt(ip, 0)).toBe(60_000);
  });
});
