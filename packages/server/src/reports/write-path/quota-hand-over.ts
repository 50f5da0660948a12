import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { QuotaCrossing, QuotaCrossingHook } from './quota-crossing-port.js';

/** Refused account months remembered at most; past it, forgotten (one statement each again). */
const MAX_REFUSALS_REMEMBERED = 10_000;

/**
 * How a writer (the Kysely back end, or the SQLite writer thread) hands a batch's quota
 * crossings (plan-batch.ts) to its hook, in the batch's transaction. A crossing of the count
 * happens in one batch of a month only, but a month past its quota refuses every batch: the
 * writer remembers, once committed, the refused account months it handed over, so the refusals
 * that follow run no statement.
 */
export function quotaHandOver(hook: QuotaCrossingHook | null) {
  const refused = new Set<string>();
  const id = (crossing: QuotaCrossing) => `${crossing.accountId} ${crossing.month}`;
  return {
    /** Calls the hook with what is to announce, in `trx`; returns what it handed (for `committed`). */
    async inTransaction(
      trx: Kysely<DB>,
      crossings: readonly QuotaCrossing[],
    ): Promise<readonly QuotaCrossing[]> {
      if (!hook || crossings.length === 0) return [];
      const handed = crossings.filter(
        (crossing) => crossing.cause === 'count' || !refused.has(id(crossing)),
      );
      if (handed.length > 0) await hook(trx, handed);
      return handed;
    },
    /** After the commit of the transaction `inTransaction` ran in. */
    committed(handed: readonly QuotaCrossing[]): void {
      for (const crossing of handed) {
        // A month reached refuses every batch after it: those need announce nothing.
        if (crossing.threshold !== 'reached') continue;
        if (refused.size >= MAX_REFUSALS_REMEMBERED) refused.clear();
        refused.add(id(crossing));
      }
    },
  };
}

export type QuotaHandOver = ReturnType<typeof quotaHandOver>;
