import type { SessionInfo } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { DB } from '../db/schema.js';
import { ApiError } from '../errors/api-error.js';
import { monthlyQuotaLimit, usageMonth } from '../limits/storage-limits.js';
import { getUsage } from '../reports/usage.repository.js';
import { findAccountByEmail, findAccountById } from './account.repository.js';
import { normalizeEmail } from './account.service.js';
import type { PasswordHasher } from './password-hasher.js';
import type { SigninThrottle } from './signin-throttle.js';

const INVALID_CREDENTIALS =
  'The email or the password is wrong. Check both and retry; after several failed tries, sign-in is paused for a while.';

/** Whether the account is the operator, and its month's stored reports against its limit. */
async function accountState(ctx: { db: Kysely<DB>; config: Config }, accountId: string) {
  const account = await findAccountById(ctx.db, accountId);
  if (!account) throw new ApiError('not_authenticated', 'This account no longer exists.');
  const month = usageMonth(new Date());
  return {
    operator: account.is_operator === 1,
    usage: {
      month,
      used: await getUsage(ctx.db, accountId, month),
      limit: monthlyQuotaLimit(ctx.config.freeTierMonthlyReports, account),
    },
  };
}

/** The body of GET /v1/auth/session, sign-up and sign-in. */
export async function sessionInfo(
  ctx: { db: Kysely<DB>; config: Config },
  account: { id: string; email: string },
  csrfToken: string,
): Promise<SessionInfo> {
  const { operator, usage } = await accountState(ctx, account.id);
  return {
    account: { id: account.id, email: account.email, operator },
    csrf_token: csrfToken,
    signups: ctx.config.signups,
    usage,
  };
}

export interface Authenticator {
  signIn(
    input: { email: string; password: string },
    ip: string,
  ): Promise<{ id: string; email: string }>;
}

/**
 * Email and password sign-in. Unknown emails and accounts without a password (made by the
 * CLI) are checked against a dummy hash, so they take as long as a wrong password and get the
 * same answer: the response does not tell which emails have accounts. Every check takes a
 * slot of the bounded password hasher (`ctx.passwords`), so a flood of sign-ins cannot starve
 * ingest either.
 */
export function createAuthenticator(
  ctx: { db: Kysely<DB>; passwords: PasswordHasher },
  throttle: SigninThrottle,
): Authenticator {
  return {
    async signIn(input, ip) {
      const email = normalizeEmail(input.email);
      // Counted before the (slow) check, so a burst of parallel guesses is counted too.
      const waitMs = await throttle.attempt(email, ip);
      if (waitMs > 0) {
        const seconds = Math.ceil(waitMs / 1000);
        throw new ApiError(
          'rate_limited',
          `Too many failed sign-ins for this email from your address. Wait ${seconds} seconds and retry.`,
          { headers: { 'Retry-After': String(seconds) } },
        );
      }
      const account = await findAccountByEmail(ctx.db, email);
      const ok = await ctx.passwords.verify(input.password, account?.password_hash ?? null);
      if (!account || !ok) throw new ApiError('invalid_credentials', INVALID_CREDENTIALS);
      await throttle.succeed(email, ip);
      return { id: account.id, email: account.email };
    },
  };
}
