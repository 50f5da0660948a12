/**
 * Interleaved A/B of PostgreSQL ingest between builds: on this shared VM one 10-second run
 * differs from the next by up to ±30 %, so two builds are only compared in turns on one
 * cluster. Copy each build's `packages/server/dist` to `packages/server/dist-<name>` (inside
 * the package, so its imports resolve), then:
 *
 *   AB_BUILDS=old,new,new:off AB_ROUNDS=4 npx tsx bench/ab-ingest.ts
 *
 * (`name:off`: that build with ISSUE_GROUPING=off; the rest as AB_GROUPING says, default on;
 * `AB_DIALECT=sqlite`: on a fresh SQLite file each run instead.)
 * Each round runs every build once on a fresh database of a durable throwaway cluster, the
 * order reversed every other round; it prints each run (its p99, and how long reports waited
 * for their issue) and the medians of req/s, of p99, of the server's CPU a request, and of the
 * whole machine's (the database's and the load generator's included: what a request costs the
 * two cores), and each later build's req/s against the first's round by round. Not part of
 * `npm run bench`.
 */
import { postgresDatabase, sqliteDatabase, startPostgresCluster } from './databases.js';
import { benchDebriefIngest } from './ingest.bench.js';

const builds = (process.env.AB_BUILDS ?? 'a,b').split(',');
const rounds = Number(process.env.AB_ROUNDS ?? 4);
const grouping = process.env.AB_GROUPING ?? 'on';
const onSqlite = process.env.AB_DIALECT === 'sqlite';

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0;

const cluster = onSqlite ? null : await startPostgresCluster({ durable: true });
const results = new Map<string, { rps: number; p99: number; cpu: number; machine: number }[]>();
let databases = 0;
try {
  for (let round = 0; round < rounds; round++) {
    for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
      // cli-process.ts runs this entry point instead of dist/cli.js.
      const [name, mode = grouping] = build.split(':');
      process.env.DEBRIEF_CLI_ENTRY = `packages/server/dist-${name}/cli.js`;
      const database = cluster
        ? await postgresDatabase(cluster, `ab_${++databases}`)
        : sqliteDatabase();
      try {
        const timing = { warmupSeconds: 2, seconds: 8 };
        const run = await benchDebriefIngest(database, timing, { ISSUE_GROUPING: mode! });
        const cpu = run.cpuMicrosPerRequest ?? 0;
        const machine = run.machineCpuMicrosPerRequest ?? 0;
        const rps = run.requestsPerSecond;
        const p99 = run.p99Ms;
        results.set(build, [...(results.get(build) ?? []), { rps, p99, cpu, machine }]);
        process.stderr.write(
          `round ${round + 1} ${build}: ${Math.round(rps)} req/s, p99 ${p99} ms, ${Math.round(cpu)} µs a request (machine ${Math.round(machine)})${run.grouping ? `, reports waited up to ${run.grouping.maxAgeMs} ms` : ''}\n`,
        );
      } finally {
        await database.drop();
      }
    }
  }
} finally {
  cluster?.stop();
}
const [baseline] = builds;
for (const [build, runs] of results) {
  const rps = Math.round(median(runs.map((r) => r.rps)));
  const p99 = median(runs.map((r) => r.p99));
  const cpu = Math.round(median(runs.map((r) => r.cpu)));
  const machine = Math.round(median(runs.map((r) => r.machine)));
  process.stdout.write(
    `${build}: median ${rps} req/s, p99 ${p99} ms, ${cpu} µs a request (server), ${machine} (machine)${build === baseline ? '' : againstBaseline(runs)}\n`,
  );
}

/**
 * Each round's pair against the first build, run in the same round: the machine's speed swings
 * from one minute to the next by more than most changes are worth, so a pair shares its minute.
 */
function againstBaseline(runs: { rps: number }[]): string {
  const base = results.get(baseline!) ?? [];
  const changes = runs.map((run, i) => (100 * run.rps) / (base[i]?.rps ?? Number.NaN) - 100);
  const faster = changes.filter((change) => change > 0).length;
  const sorted = [...changes].sort((x, y) => x - y);
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)} %`;
  return `; against ${baseline}, round by round: a median ${pct(median(changes))}, ${faster} of ${changes.length} faster (${pct(sorted[0]!)} to ${pct(sorted.at(-1)!)})`;
}
