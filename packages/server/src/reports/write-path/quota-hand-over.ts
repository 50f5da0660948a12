import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { QuotaCrossing, QuotaCrossingHook } from './quota-crossing-port.js';

/** Account months' marks remembered at most; past it, forgotten (one statement each again). */
const MAX_MARKS_REMEMBERED = 10_000;

/**
 * How a writer (the Kysely back end, or the SQLite writer thread) hands a batch's quota
 * crossings (plan-batch.ts) to its hook, in the batch's transaction. A mark passed `now` happens
 * in one batch of a month; a month already past a mark (`before`) is so in every batch after:
 * the writer remembers, once committed, each account month's mark it handed over (or saw
 * passed), so only the first such batch of each writer runs a statement for it.
 */
export function quotaHandOver(hook: QuotaCrossingHook | null) {
  const handedOver = new Set<string>();
  const id = (c: QuotaCrossing) => `${c.accountId} ${c.month} ${c.threshold}`;
  return {
    /** Calls the hook with what is to announce, in `trx`; returns what it handed (for `committed`). */
    async inTransaction(
      trx: Kysely<DB>,
      crossings: readonly QuotaCrossing[],
    ): Promise<readonly QuotaCrossing[]> {
      if (!hook || crossings.length === 0) return [];
      const handed = crossings.filter((c) => c.passed === 'now' || !handedOver.has(id(c)));
      if (handed.length > 0) await hook(trx, handed);
      return handed;
    },
    /** After the commit of the transaction `inTransaction` ran in. */
    committed(handed: readonly QuotaCrossing[]): void {
      for (const crossing of handed) {
        if (handedOver.size >= MAX_MARKS_REMEMBERED) handedOver.clear();
        handedOver.add(id(crossing));
      }
    },
  };
}

export type QuotaHandOver = ReturnType<typeof quotaHandOver>;
