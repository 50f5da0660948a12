import { OUTCOMES, type Outcome } from '@debrief/protocol';

/** Reports of an issue per outcome. */
export type OutcomeCounts = Record<Outcome, number>;

export function emptyCounts(): OutcomeCounts {
  return { success: 0, failure: 0, confusing: 0, gave_up: 0, request: 0 };
}

export function isOutcomeName(value: string): value is Outcome {
  return (OUTCOMES as readonly string[]).includes(value);
}

export function countsOfRow(row: {
  count_success: number | string;
  count_failure: number | string;
  count_confusing: number | string;
  count_gave_up: number | string;
  count_request: number | string;
}): OutcomeCounts {
  return {
    success: Number(row.count_success),
    failure: Number(row.count_failure),
    confusing: Number(row.count_confusing),
    gave_up: Number(row.count_gave_up),
    request: Number(row.count_request),
  };
}

/** The columns of an issue's counters, total included. */
export function countColumns(counts: OutcomeCounts) {
  return {
    report_count: totalOf(counts),
    count_success: counts.success,
    count_failure: counts.failure,
    count_confusing: counts.confusing,
    count_gave_up: counts.gave_up,
    count_request: counts.request,
  };
}

export function totalOf(counts: OutcomeCounts): number {
  return OUTCOMES.reduce((sum, outcome) => sum + counts[outcome], 0);
}

/** The most frequent outcome; a tie goes to the earlier in OUTCOMES (the dashboard's order). */
export function dominantOutcome(counts: OutcomeCounts, fallback: Outcome): Outcome {
  let best: Outcome = fallback;
  let bestCount = -1;
  for (const outcome of OUTCOMES) {
    if (counts[outcome] > bestCount) {
      best = outcome;
      bestCount = counts[outcome];
    }
  }
  return bestCount > 0 ? best : fallback;
}
