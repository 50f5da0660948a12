import type { Signups } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { DB } from '../db/schema.js';
import { ApiError } from '../errors/api-error.js';
import { useInvitation } from '../invitations/invitation.repository.js';
import { checkInvitation } from '../invitations/invitation.service.js';
import { findAccountByEmail, findOperator } from './account.repository.js';
import {
  type AccountSummary,
  emailTaken,
  insertNewAccount,
  insertWithRetry,
  normalizeEmail,
  OperatorTaken,
} from './account.service.js';
import type { PasswordHasher } from './password-hasher.js';
import type { SignupThrottle } from './signup-throttle.js';

/**
 * True while the instance has no operator yet and a sign-up without an invitation would create
 * it (`SIGNUPS` is not `closed`): the sign-in page then offers sign-up and says so.
 */
export async function isFirstSignup(ctx: { db: Kysely<DB>; config: Config }): Promise<boolean> {
  return ctx.config.signups !== 'closed' && !(await findOperator(ctx.db));
}

function signupsClosed(mode: Signups): ApiError {
  return new ApiError(
    'signups_closed',
    mode === 'closed'
      ? 'Sign-ups on this Debrief instance need an invitation link. Ask its operator for one (made in the dashboard or with `debrief invite`), then open it to sign up.'
      : 'This Debrief instance already has its operator, and further sign-ups need an invitation link. Ask the operator for one (made in the dashboard or with `debrief invite`), then open it to sign up.',
  );
}

/**
 * Who may sign up (docs/operating.md, Sign-up and invitations): with `SIGNUPS=open` anyone;
 * otherwise only the holder of a valid invitation, or — with the default `invite` — the very first
 * account, which becomes the operator. The order keeps the expensive part last: the rules
 * and the email are checked first, then the address's throttle counts the try, then the
 * password is hashed in a bounded slot, then the invitation is used and the account inserted
 * in one transaction (two sign-ups with one link: exactly one wins).
 */
export async function signUp(
  ctx: { db: Kysely<DB>; config: Config; passwords: PasswordHasher },
  throttle: SignupThrottle,
  input: { email: string; password: string; invitation?: string | undefined },
  ip: string,
): Promise<AccountSummary> {
  const email = normalizeEmail(input.email);
  const mode = ctx.config.signups;
  const invitation = input.invitation
    ? await checkInvitation(ctx.db, input.invitation, email)
    : null;
  // Without an invitation, a sign-up must be open, or be the first one (and stay the first).
  const mustBeOperator = !invitation && mode !== 'open';
  if (mustBeOperator && (mode === 'closed' || (await findOperator(ctx.db))))
    throw signupsClosed(mode);
  if (await findAccountByEmail(ctx.db, email)) throw emailTaken(email);

  // Counted before the (slow, bounded) hash, so a burst of parallel sign-ups counts in full.
  const waitMs = await throttle.attempt(ip);
  if (waitMs > 0) {
    const seconds = Math.ceil(waitMs / 1000);
    throw new ApiError(
      'rate_limited',
      `Too many sign-ups from your address. Wait ${seconds} seconds and retry.`,
      { headers: { 'Retry-After': String(seconds) } },
    );
  }
  const passwordHash = await ctx.passwords.hash(input.password);

  try {
    return await insertWithRetry(ctx.db, email, () =>
      ctx.db.transaction().execute(async (trx) => {
        const account = await insertNewAccount(trx, { email, passwordHash, mustBeOperator });
        if (invitation && !(await useInvitation(trx, invitation.id, account.id, new Date()))) {
          // Used, revoked or expired since the check: say which, and roll the account back.
          await checkInvitation(trx, input.invitation ?? '', email);
          throw new ApiError('invalid_invitation', 'This invitation link can no longer be used.');
        }
        return account;
      }),
    );
  } catch (error) {
    if (error instanceof OperatorTaken) throw signupsClosed(mode);
    throw error;
  }
}
