import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

export interface NewAccount {
  id: string;
  email: string;
  passwordHash: string | null;
  createdAt: Date;
  /** At most one account is the operator: a second insert with true fails (unique index). */
  isOperator: boolean;
}

export async function insertAccount(db: Kysely<DB>, account: NewAccount): Promise<void> {
  await db
    .insertInto('accounts')
    .values({
      id: account.id,
      email: account.email,
      password_hash: account.passwordHash,
      monthly_quota: null,
      is_operator: account.isOperator ? 1 : 0,
      created_at: account.createdAt.toISOString(),
    })
    .execute();
}

export async function findAccountByEmail(db: Kysely<DB>, email: string) {
  return db
    .selectFrom('accounts')
    .select(['id', 'email', 'password_hash', 'monthly_quota', 'quota_unlimited', 'created_at'])
    .where('email', '=', email)
    .executeTakeFirst();
}

export async function findAccountById(db: Kysely<DB>, id: string) {
  return db
    .selectFrom('accounts')
    .select([
      'id',
      'email',
      'password_hash',
      'monthly_quota',
      'quota_unlimited',
      'is_operator',
      'created_at',
    ])
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateAccountQuota(
  db: Kysely<DB>,
  accountId: string,
  quota: { monthly: number | null; unlimited: boolean },
): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ monthly_quota: quota.monthly, quota_unlimited: quota.unlimited ? 1 : 0 })
    .where('id', '=', accountId)
    .execute();
}

export async function countAccounts(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The instance's operator, or undefined while it has none (no account yet). */
export async function findOperator(db: Kysely<DB>) {
  return db
    .selectFrom('accounts')
    .select(['id', 'email'])
    .where('is_operator', '=', 1)
    .executeTakeFirst();
}
