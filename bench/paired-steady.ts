/**
 * A feature's cost to ingest at a fixed rate: steady rounds (steady.bench.ts) of the server
 * without the feature and with it, in turns on fresh databases, each pair judged by its own
 * ratio of server CPU a report; the median of those ratios is the figure.
 */
import type { BenchDatabase } from './databases.js';
import {
  median,
  micros,
  type RoundSetup,
  type SteadyOptions,
  type SteadyRound,
  steadyRound,
  steadyRoundValid,
} from './steady.bench.js';

export interface PairedRun {
  dialect: string;
  pairs: { without: SteadyRound; with: SteadyRound }[];
  /** A line for the notes under the table (what the rounds with the feature did). */
  note?: () => string;
}

export interface PairedComparison {
  /** The feature, in the log: "notifications", "the submit answer". */
  name: string;
  withoutLabel: string;
  withLabel: string;
  /** The round with the feature. */
  setup: () => RoundSetup;
}

/** `options.rounds` pairs, the two variants taking turns going first. */
export async function pairedSteady(
  dialect: string,
  make: () => Promise<BenchDatabase>,
  options: SteadyOptions,
  log: (line: string) => void,
  comparison: PairedComparison,
): Promise<PairedRun> {
  const round = async (label: string, setup: RoundSetup) => {
    const database = await make();
    try {
      const result = await steadyRound(database, options, setup);
      log(
        `  ${label}: sent ${Math.round(result.load.sentPerSecond)} req/s, p99 ${result.load.p99Ms} ms, ${result.load.failures} errors; server CPU µs a report ${micros(result.serverMicros)}`,
      );
      return result;
    } finally {
      await database.drop();
    }
  };
  const pairs: PairedRun['pairs'] = [];
  for (let n = 1; n <= options.rounds; n++) {
    log(`ingest with ${comparison.name} on ${dialect}, round ${n} of ${options.rounds}…`);
    const without = () => round(comparison.withoutLabel, {});
    const withIt = () => round(comparison.withLabel, comparison.setup());
    if (n % 2 === 1) {
      const a = await without();
      pairs.push({ without: a, with: await withIt() });
    } else {
      const b = await withIt();
      pairs.push({ without: await without(), with: b });
    }
  }
  return { dialect, pairs };
}

const signed = (change: number | null) =>
  change === null ? 'n/a' : `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %`;

/** The table of a comparison: p99, CPU a report, and the median change against the target. */
export function pairedTable(
  runs: PairedRun[],
  options: SteadyOptions,
  heading: string,
  maxChange: number,
): string {
  const lines = [
    `| Ingest at a fixed ${options.rate.toLocaleString('en')} req/s ${heading} (median of rounds) | p99 ms, without / with | server CPU µs/report, without / with | change (median of pairs) | target | |`,
    '| --- | ---: | ---: | ---: | --- | --- |',
  ];
  const notes: string[] = [];
  for (const { dialect, pairs, note } of runs) {
    const kept = pairs.filter(
      (p) => steadyRoundValid(p.without, options.rate) && steadyRoundValid(p.with, options.rate),
    );
    const changes = kept.map((p) =>
      p.without.serverMicros && p.with.serverMicros !== null
        ? p.with.serverMicros / p.without.serverMicros - 1
        : null,
    );
    const change = median(changes);
    const pick = (of: (p: (typeof pairs)[number]) => number | null) => median(kept.map(of));
    const ms = (value: number | null) => (value === null ? 'n/a' : value.toFixed(1));
    lines.push(
      `| ${dialect} (${kept.length} of ${pairs.length} pairs) | ${ms(pick((p) => p.without.load.p99Ms))} / ${ms(pick((p) => p.with.load.p99Ms))} | ${micros(pick((p) => p.without.serverMicros))} / ${micros(pick((p) => p.with.serverMicros))} | **${signed(change)}** | < ${(maxChange * 100).toFixed(0)} % | ${change === null ? 'n/a' : change < maxChange ? 'met' : 'MISSED'} |`,
    );
    notes.push(
      `${dialect}: change per pair ${changes.map(signed).join(', ')}${note ? `; ${note()}` : ''}.`,
    );
  }
  return [...lines, '', ...notes].join('\n');
}
