import type { Kysely, Migration } from 'kysely';

/**
 * Failed sign-ins (and counted sign-ups) per throttle key, shared by every instance on the
 * database (accounts/failure-counter.ts). Counters in each process's memory would let two
 * instances behind a load balancer take twice the guesses.
 *
 * - `scope` names the counter (`signin_account`, `signin_address`, `signup_address`); `key` is
 *   the SHA-256 of what it counts (email and address, or address), so the table does not list
 *   who tried to sign in from where.
 * - `delay_ms` is the current lockout (it doubles with each failure past the free ones) and
 *   `locked_until` when it ends, so that one upsert can both refuse a locked key and count a
 *   failure, without `pow()` (SQLite has it only when built with its math functions).
 * - Times are epoch milliseconds (`bigint`): the throttle works in milliseconds, and both
 *   dialects compare numbers alike.
 * - `expires_at` (last failure + the counter's window) lets one indexed delete prune every
 *   counter whatever its window.
 */
export function authFailuresMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('auth_failures')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('delay_ms', 'bigint', (c) => c.notNull())
        .addColumn('locked_until', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('auth_failures_pk', ['scope', 'key'])
        .execute();
      await db.schema
        .createIndex('auth_failures_by_expiry')
        .on('auth_failures')
        .column('expires_at')
        .execute();
    },
  };
}
