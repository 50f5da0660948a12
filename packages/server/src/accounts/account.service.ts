import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { ApiError } from '../errors/api-error.js';
import { newId } from '../ids.js';
import {
  findAccountByEmail,
  findAccountById,
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
}

/** A new account. Without a password it cannot sign in to the dashboard (CLI-made, API only). */
export async function createAccount(
  db: Kysely<DB>,
  input: { email: string; password: string | null },
): Promise<AccountSummary> {
  const email = normalizeEmail(input.email);
  if (await findAccountByEmail(db, email)) {
    throw new ApiError(
      'conflict',
      `An account with the email ${email} already exists. Sign in instead.`,
    );
  }
  const account = {
    id: newId(),
    email,
    passwordHash: input.password === null ? null : await hashPassword(input.password),
    createdAt: new Date(),
  };
  await insertAccount(db, account);
  return { id: account.id, email, createdAt: account.createdAt };
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
