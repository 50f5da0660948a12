import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { ApiError } from '../errors/api-error.js';
import { newId } from '../ids.js';
import {
  findAccountByEmail,
  findAccountById,
  findOperator,
  insertAccount,
  updateAccountQuota,
} from './account.repository.js';
import { hashPassword } from './password.js';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface AccountSummary {
  id: string;
  email: string;
  createdAt: Date;
  operator: boolean;
}

export function emailTaken(email: string): ApiError {
  return new ApiError(
    'conflict',
    `An account with the email ${email} already exists. Sign in instead.`,
  );
}

/**
 * Inserts an account whose password is already hashed. It becomes the operator when the
 * instance has none yet (the first account); `mustBeOperator` refuses instead of inserting a
 * plain account when another request became the operator first (a first sign-up that lost the
 * race has no right to an account). Call inside a transaction to tie it to other writes.
 */
export async function insertNewAccount(
  db: Kysely<DB>,
  input: { email: string; passwordHash: string | null; mustBeOperator?: boolean },
): Promise<AccountSummary> {
  const account = {
    id: newId(),
    email: input.email,
    passwordHash: input.passwordHash,
    createdAt: new Date(),
    isOperator: !(await findOperator(db)),
  };
  if (input.mustBeOperator && !account.isOperator) throw new OperatorTaken();
  await insertAccount(db, account);
  return {
    id: account.id,
    email: account.email,
    createdAt: account.createdAt,
    operator: account.isOperator,
  };
}

/** A first sign-up found the operator already there (see insertNewAccount). */
export class OperatorTaken extends Error {
  override name = 'OperatorTaken';
}

/**
 * Runs `insert` (an insertNewAccount, maybe in a transaction) and sorts out a unique violation:
 * an account with the email now exists (409), or a concurrent first account took the operator
 * row, in which case `insert` runs once more and sees that operator.
 */
export async function insertWithRetry<T>(
  db: Kysely<DB>,
  email: string,
  insert: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await insert();
    } catch (error) {
      if (error instanceof ApiError || error instanceof OperatorTaken) throw error;
      if (await findAccountByEmail(db, email)) throw emailTaken(email);
      if (attempt > 0 || !(await findOperator(db))) throw error;
    }
  }
}

/**
 * A new account, made by the CLI or a service. Without a password it cannot sign in to the
 * dashboard (CLI-made, API only). The first account of the instance is its operator.
 */
export async function createAccount(
  db: Kysely<DB>,
  input: { email: string; password: string | null },
  hash: (password: string) => Promise<string> = hashPassword,
): Promise<AccountSummary> {
  const email = normalizeEmail(input.email);
  if (await findAccountByEmail(db, email)) throw emailTaken(email);
  const passwordHash = input.password === null ? null : await hash(input.password);
  return insertWithRetry(db, email, () => insertNewAccount(db, { email, passwordHash }));
}

/** The account with this email, created with this password when absent (CLI bootstrap). */
export async function ensureAccount(
  db: Kysely<DB>,
  input: { email: string; password: string | null },
): Promise<{ id: string; created: boolean }> {
  const existing = await findAccountByEmail(db, normalizeEmail(input.email));
  if (existing) return { id: existing.id, created: false };
  const account = await createAccount(db, input);
  return { id: account.id, created: true };
}

export type QuotaSetting = number | 'unlimited' | 'default';

export async function setMonthlyQuota(db: Kysely<DB>, email: string, setting: QuotaSetting) {
  const account = await findAccountByEmail(db, normalizeEmail(email));
  if (!account)
    throw new ApiError('not_found', `No account has the email ${normalizeEmail(email)}.`);
  await updateAccountQuota(db, account.id, {
    monthly: typeof setting === 'number' ? setting : null,
    unlimited: setting === 'unlimited',
  });
  return { id: account.id };
}

export async function getAccount(db: Kysely<DB>, id: string) {
  return findAccountById(db, id);
}
