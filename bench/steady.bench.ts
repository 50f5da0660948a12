/**
 * Steady ingest: POST /v1/reports at a fixed rate that both dialects sustain with room to spare
 * on two cores, and what each report costs in CPU. Saturating ingest (ingest.bench.ts) answers
 * "how many a second"; this answers "how much CPU a report takes at an ordinary rate", the figure
 * a change that should not slow ingest is judged by. CPU time depends less than throughput on how
 * busy the rest of the machine is, but still does (shared caches): rounds on fresh databases, the
 * median shown, and a baseline build measured in turns with this tree's for a comparison.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Bootstrapped, CliServer } from '../test/harness/cli-process.js';
import type { BenchDatabase } from './databases.js';
import { watchGroupingLag } from './grouping-lag.js';
import { ingestBody } from './ingest.bench.js';
import { cpuSeconds, machineCpuSeconds } from './load.js';
import { type PacedResult, pacedAgent, pacedLoad } from './paced-load.js';
import {
  clusterCpuSeconds,
  findPostmaster,
  keepChildrenRaised,
  raisePriority,
} from './process-cpu.js';
import { startDebriefForIngest } from './processes.js';

export interface SteadyOptions {
  /** Requests a second (DEBRIEF_BENCH_STEADY_RATE). */
  rate: number;
  /** Unmeasured load first, so JIT, caches, connections and the write path's batching settle. */
  warmupSeconds: number;
  seconds: number;
  /** Rounds, each on a fresh database and server (DEBRIEF_BENCH_STEADY_ROUNDS). */
  rounds: number;
}

/**
 * 1,500 a second: a fifth of what SQLite ingest saturates at on two cores and under half of
 * PostgreSQL's, so neither queues, and (at STEADY_NICE) both keep the schedule while other work
 * shares the cores.
 */
export const STEADY: SteadyOptions = {
  rate: Number(process.env.DEBRIEF_BENCH_STEADY_RATE ?? 1500),
  warmupSeconds: 5,
  seconds: 15,
  rounds: Number(process.env.DEBRIEF_BENCH_STEADY_ROUNDS ?? 5),
};

/** A measured window counts only if it sent at least this share of the rate. */
const KEPT_SCHEDULE = 0.98;

export interface SteadyRound {
  load: PacedResult;
  /** CPU µs a report (a 2xx answer of the window): the Debrief server process, all its threads. */
  serverMicros: number | null;
  /** The PostgreSQL cluster's processes (null on SQLite, which runs inside the server). */
  databaseMicros: number | null;
  /** This process: the load generator, the grouping-lag sampler, the backends' priority watch. */
  generatorMicros: number;
  /** Every busy CPU of the machine: counts other work on a shared machine too. */
  machineMicros: number | null;
  /** The oldest ungrouped report's age at the worst 250-ms sample (warm-up and window). */
  oldestUngroupedMs: number;
  /** From the window's end until every report had its issue (null: not within 120 s). */
  drainedMs: number | null;
  /** The niceness the round's processes ran at: STEADY_NICE, or 0 where it may not be raised. */
  nice: number;
}

export interface SteadyRun {
  dialect: string;
  /** `this tree`, or the baseline's directory (DEBRIEF_BENCH_STEADY_BASELINE). */
  build: string;
  rounds: SteadyRound[];
  /** os.loadavg() (1, 5, 15 min) before the first round and after the last. */
  loadBefore: number[];
  loadAfter: number[];
}

/** Whether a round's figures stand: every answer 2xx and the schedule kept. */
export function steadyRoundValid(round: SteadyRound, rate: number): boolean {
  return round.load.failures === 0 && round.load.sentPerSecond >= rate * KEPT_SCHEDULE;
}

export const THIS_TREE = 'this tree';

/**
 * The builds to measure: this tree's dist, and with DEBRIEF_BENCH_STEADY_BASELINE (a copy built
 * by make-baseline.sh) that build too, in turns within every round: the machine's pace drifts
 * from one minute to the next by more than the 10 % a comparison judges, so two builds are only
 * compared side by side.
 */
export function steadyBuilds(): { build: string; entry: string | undefined }[] {
  const baseline = process.env.DEBRIEF_BENCH_STEADY_BASELINE;
  return [
    { build: THIS_TREE, entry: undefined },
    ...(baseline
      ? [{ build: baseline, entry: join(baseline, 'packages/server/dist/cli.js') }]
      : []),
  ];
}

/** `options.rounds` steady runs of every build, each on a fresh database from `make`. */
export async function benchSteadyIngest(
  dialect: string,
  make: () => Promise<BenchDatabase>,
  options: SteadyOptions,
  log: (line: string) => void,
): Promise<SteadyRun[]> {
  const loadBefore = loadavg();
  const builds = steadyBuilds();
  const rounds = new Map<string, SteadyRound[]>(builds.map(({ build }) => [build, []]));
  const ownEntry = process.env.DEBRIEF_CLI_ENTRY;
  try {
    for (let round = 1; round <= options.rounds; round++) {
      // Builds take turns going first, so what one run leaves behind falls on either.
      for (const { build, entry } of round % 2 === 1 ? builds : [...builds].reverse()) {
        const label = builds.length > 1 ? ` (${build})` : '';
        log(
          `steady ingest on ${dialect}${label} at ${options.rate} req/s, round ${round} of ${options.rounds}…`,
        );
        // cli-process.ts runs DEBRIEF_CLI_ENTRY instead of this tree's dist/cli.js.
        if (entry) process.env.DEBRIEF_CLI_ENTRY = entry;
        else if (ownEntry) process.env.DEBRIEF_CLI_ENTRY = ownEntry;
        else delete process.env.DEBRIEF_CLI_ENTRY;
        const database = await make();
        try {
          const result = await steadyRound(database, options);
          rounds.get(build)?.push(result);
          log(
            `  sent ${Math.round(result.load.sentPerSecond)} req/s, p99 ${result.load.p99Ms} ms, ${result.load.failures} errors; µs a report: server ${micros(result.serverMicros)}, database ${micros(result.databaseMicros)}, generator ${micros(result.generatorMicros)}, machine ${micros(result.machineMicros)}; oldest ungrouped ${result.oldestUngroupedMs} ms`,
          );
        } finally {
          await database.drop();
        }
      }
    }
  } finally {
    if (ownEntry) process.env.DEBRIEF_CLI_ENTRY = ownEntry;
    else delete process.env.DEBRIEF_CLI_ENTRY;
  }
  const loadAfter = loadavg();
  return builds.map(({ build }) => ({
    dialect,
    build,
    rounds: rounds.get(build) ?? [],
    loadBefore,
    loadAfter,
  }));
}

/**
 * The niceness of a round's processes and of their autogroups: the bench, the server it starts
 * and the PostgreSQL cluster with its backends, where the bench may raise it (as root). Their
 * load is small and fixed, so other work on a shared machine keeps the rest of the cores. The
 * autogroup raised is the bench's session: run it as `setsid -w npm run bench`, so that session
 * is the bench's own rather than the terminal's.
 */
const STEADY_NICE = -10;

/**
 * What a variant of the round adds: settings for the server and a step once it runs (before the
 * warm-up), whose returned function undoes it after the round.
 */
export interface RoundSetup {
  env?: Record<string, string>;
  /** The bootstrapped API key's scopes, for `prepare`. */
  scopes?: string;
  prepare?: (
    server: CliServer,
    tenant: Bootstrapped,
    databaseUrl: string,
  ) => Promise<() => Promise<void>>;
}

/** One round at a raised priority where allowed: see raisePriority. */
export async function steadyRound(
  database: BenchDatabase,
  options: SteadyOptions,
  setup: RoundSetup = {},
): Promise<SteadyRound> {
  const postgresPort = /^postgres(ql)?:\/\//.test(database.url)
    ? Number(new URL(database.url).port)
    : null;
  const postmaster = postgresPort === null ? null : findPostmaster(postgresPort);
  if (postgresPort !== null && postmaster === null)
    throw new Error(`no postmaster found on port ${postgresPort}`);
  // The cluster's children (its backends, checkpointer, WAL writer) are raised while the server runs.
  const restore = raisePriority(
    [process.pid, ...(postmaster === null ? [] : [postmaster])],
    STEADY_NICE,
  );
  try {
    const nice = restore ? STEADY_NICE : 0;
    return { ...(await measureRound(database, options, postmaster, nice, setup)), nice };
  } finally {
    restore?.();
  }
}

/** One server on a fresh database, bootstrapped as the ingest bench does; one warm-up, one window. */
async function measureRound(
  database: BenchDatabase,
  options: SteadyOptions,
  postmaster: number | null,
  nice: number,
  setup: RoundSetup,
): Promise<Omit<SteadyRound, 'nice'>> {
  const dbEnv = { ...setup.env, DATABASE_URL: database.url };
  const email = 'bench-steady@example.test';
  const { tenant, server } = await startDebriefForIngest(
    dbEnv,
    email,
    'Bench steady',
    undefined,
    setup.scopes,
  );
  const undo = await setup.prepare?.(server, tenant, database.url).catch(async (error: unknown) => {
    await server.kill('SIGTERM');
    throw error;
  });
  const backends = postmaster === null || nice === 0 ? null : keepChildrenRaised(postmaster, nice);
  const lag = await watchGroupingLag(database.url);
  const agent = pacedAgent();
  try {
    const load = {
      url: `${server.url}/v1/reports`,
      body: ingestBody(tenant.ingest_key),
      headers: { 'content-type': 'application/json' },
      rate: options.rate,
      agent,
    };
    const warmup = await pacedLoad({ ...load, seconds: options.warmupSeconds });
    if (warmup.failures > 0)
      throw new Error(`warm-up answers were not 2xx: ${JSON.stringify(warmup.failedStatuses)}`);
    const before = readings(server.child.pid, postmaster);
    const measured = await pacedLoad({ ...load, seconds: options.seconds });
    const after = readings(server.child.pid, postmaster);
    // After the readings: the drain's wait is outside the window.
    const grouping = await lag.stop();
    const perReport = (a: number | null, b: number | null) =>
      a !== null && b !== null && measured.ok > 0 ? ((b - a) * 1e6) / measured.ok : null;
    return {
      load: measured,
      serverMicros: perReport(before.server, after.server),
      databaseMicros: perReport(before.database, after.database),
      generatorMicros: perReport(before.generator, after.generator) ?? 0,
      machineMicros: perReport(before.machine, after.machine),
      oldestUngroupedMs: grouping.maxAgeMs,
      drainedMs: grouping.drainedMs,
    };
  } finally {
    backends?.stop();
    agent.destroy();
    await lag.cancel();
    await server.kill('SIGTERM');
    await undo?.();
  }
}

function readings(serverPid: number | undefined, postmaster: number | null) {
  const usage = process.cpuUsage();
  return {
    server: cpuSeconds(serverPid),
    database: postmaster === null ? null : clusterCpuSeconds(postmaster),
    generator: (usage.user + usage.system) / 1e6,
    machine: machineCpuSeconds(),
  };
}

export const micros = (value: number | null) =>
  value === null ? 'n/a' : String(Math.round(value));

/** The median (the upper one of an even count) of the values that are not null. */
export function median(values: (number | null)[]): number | null {
  const known = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
  return known[Math.floor(known.length / 2)] ?? null;
}

const signed = (change: number | null) =>
  change === null ? 'n/a' : `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %`;

/** Server, database and load generator: the CPU of the processes the round owns. */
const ownMicros = (round: SteadyRound) =>
  round.serverMicros === null
    ? null
    : round.serverMicros + (round.databaseMicros ?? 0) + round.generatorMicros;

const loads = (load: number[]) => load.map((value) => value.toFixed(2)).join(', ');

export function steadyTable(runs: SteadyRun[], options: SteadyOptions): string {
  const lines = [
    `| Steady ingest (POST /v1/reports at a fixed ${options.rate.toLocaleString('en')} req/s, evenly spaced; ${options.warmupSeconds} s warm-up, ${options.seconds} s measured; median of rounds) | sent req/s | p50 ms | p99 ms | errors | server CPU µs/report | + database | + load generator | = own processes µs/report | machine CPU µs/report | oldest ungrouped ms |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const notes: string[] = [];
  const valid = (round: SteadyRound | undefined) =>
    round !== undefined && steadyRoundValid(round, options.rate);
  for (const { dialect, build, rounds, loadBefore, loadAfter } of runs) {
    // A round that fell behind its rate measured another rate: left out of the medians.
    const kept = rounds.filter(valid);
    const own = rounds.map(ownMicros);
    const name = build === THIS_TREE ? `Debrief on ${dialect}` : `baseline on ${dialect}: ${build}`;
    const pick = (of: (round: SteadyRound) => number | null) => median(kept.map(of));
    const ms = (value: number | null) => (value === null ? 'n/a' : value.toFixed(1));
    lines.push(
      `| ${name} (${kept.length} of ${rounds.length} rounds) | ${micros(pick((r) => r.load.sentPerSecond))} | ${ms(pick((r) => r.load.p50Ms))} | ${ms(pick((r) => r.load.p99Ms))} | ${rounds.reduce((sum, r) => sum + r.load.failures, 0)} | **${micros(pick((r) => r.serverMicros))}** | ${dialect === 'sqlite' ? '(in the server)' : micros(pick((r) => r.databaseMicros))} | ${micros(pick((r) => r.generatorMicros))} | **${micros(pick(ownMicros))}** | ${micros(pick((r) => r.machineMicros))} | ${micros(pick((r) => r.oldestUngroupedMs))} |`,
    );
    const baseline =
      build === THIS_TREE
        ? undefined
        : runs.find((run) => run.dialect === dialect && run.build === THIS_TREE);
    if (baseline) {
      const change = (of: (round: SteadyRound) => number | null) =>
        median(
          baseline.rounds.map((round, i) => {
            const theirs = rounds[i];
            if (!theirs || !valid(round) || !valid(theirs)) return null;
            const [a, b] = [of(round), of(theirs)];
            return a !== null && b ? a / b - 1 : null;
          }),
        );
      lines.push(
        `| this tree against the baseline on ${dialect}: the median of the rounds' pairs | | | | | **${signed(change((r) => r.serverMicros))}** | | | **${signed(change(ownMicros))}** | ${signed(change((r) => r.machineMicros))} | |`,
      );
    }
    notes.push(
      `${name}: ${rounds.length} rounds, each a fresh database and server${rounds.some((r) => !valid(r)) ? `; left out, behind the rate or not all 2xx: round ${rounds.flatMap((r, i) => (valid(r) ? [] : [`${i + 1} (${Math.round(r.load.sentPerSecond)} req/s sent, ${r.load.failures} errors)`])).join(', ')}` : ''}; server CPU µs a report per round ${rounds.map((r) => micros(r.serverMicros)).join(', ')}; own processes ${own.map(micros).join(', ')}; machine ${rounds.map((r) => micros(r.machineMicros)).join(', ')}; niceness ${[...new Set(rounds.map((r) => r.nice))].join(', ')}; every report grouped ${rounds.map((r) => (r.drainedMs === null ? 'not within 120 s' : `${r.drainedMs} ms`)).join(', ')} after the window; load average (1, 5, 15 min) ${loads(loadBefore)} before, ${loads(loadAfter)} after.`,
    );
  }
  lines.push(
    '',
    ...notes,
    '',
    "Each column is the median of its own values over the rounds kept. Own processes = the server, the PostgreSQL cluster (on PostgreSQL) and the load generator with its grouping-lag sampler and its watch over the priority of PostgreSQL's backends; the machine column counts every busy CPU, other work on the machine included.",
  );
  return lines.join('\n');
}
