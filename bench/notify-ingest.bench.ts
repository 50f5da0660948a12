/**
 * What notifications cost ingest: steady ingest (steady.bench.ts, the same fixed rate and
 * windows) with three destinations subscribed to `report.created` (a webhook, a Slack webhook
 * and an email address, on receivers in this process) against none, in turns on fresh databases.
 * Judged by the server's CPU a report, the median of the rounds' own pairs. Target: < 5 %.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
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

export interface NotifyIngestRun {
  dialect: string;
  pairs: { none: SteadyRound; three: SteadyRound }[];
  /** Messages the receivers got in the rounds with destinations (a minute's bound each). */
  delivered: number;
}

/** Receivers on 127.0.0.1 for the three destinations: HTTP (webhook, Slack) and SMTP. */
async function startReceivers() {
  let delivered = 0;
  const http = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      delivered += 1;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => {
        delivered += 1;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  return {
    hook: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    smtpUrl: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    delivered: () => delivered,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    },
  };
}

/** The round's variant with three destinations on `report.created`, made through the API. */
function threeDestinations(hook: string, smtpUrl: string): RoundSetup {
  return {
    env: {
      ALLOW_PRIVATE_DESTINATIONS: 'true',
      SMTP_URL: smtpUrl,
      SMTP_FROM: 'Debrief <bench@example.test>',
    },
    scopes: 'read,admin',
    async prepare(server, tenant) {
      const bodies = [
        { type: 'webhook', url: `${hook}/webhook` },
        { type: 'slack', url: `${hook}/slack` },
        { type: 'email', to: ['bench@example.test'] },
      ];
      for (const body of bodies) {
        const res = await fetch(`${server.url}/v1/dashboard/${tenant.project.id}/destinations`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${tenant.api_key}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ ...body, events: ['report.created'] }),
        });
        if (res.status !== 201) throw new Error(`destination: ${res.status} ${await res.text()}`);
      }
      return async () => {};
    },
  };
}

/** `options.rounds` pairs, none and three destinations taking turns going first. */
export async function benchNotifyIngest(
  dialect: string,
  make: () => Promise<BenchDatabase>,
  options: SteadyOptions,
  log: (line: string) => void,
): Promise<NotifyIngestRun> {
  const receivers = await startReceivers();
  const pairs: NotifyIngestRun['pairs'] = [];
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
  try {
    for (let n = 1; n <= options.rounds; n++) {
      log(`ingest with notifications on ${dialect}, round ${n} of ${options.rounds}…`);
      const three = () =>
        round('three destinations', threeDestinations(receivers.hook, receivers.smtpUrl));
      const none = () => round('no destination', {});
      if (n % 2 === 1) {
        const a = await none();
        pairs.push({ none: a, three: await three() });
      } else {
        const b = await three();
        pairs.push({ none: await none(), three: b });
      }
    }
    return { dialect, pairs, delivered: receivers.delivered() };
  } finally {
    await receivers.close();
  }
}

const signed = (change: number | null) =>
  change === null ? 'n/a' : `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %`;

export function notifyIngestTable(runs: NotifyIngestRun[], options: SteadyOptions): string {
  const lines = [
    `| Ingest at a fixed ${options.rate.toLocaleString('en')} req/s with three destinations on \`report.created\` against none (median of rounds) | p99 ms, none / three | server CPU µs/report, none / three | change (median of pairs) | target | |`,
    '| --- | ---: | ---: | ---: | --- | --- |',
  ];
  const notes: string[] = [];
  for (const { dialect, pairs, delivered } of runs) {
    const kept = pairs.filter(
      (p) => steadyRoundValid(p.none, options.rate) && steadyRoundValid(p.three, options.rate),
    );
    const changes = kept.map((p) =>
      p.none.serverMicros && p.three.serverMicros !== null
        ? p.three.serverMicros / p.none.serverMicros - 1
        : null,
    );
    const change = median(changes);
    const pick = (of: (p: (typeof pairs)[number]) => number | null) => median(kept.map(of));
    const ms = (value: number | null) => (value === null ? 'n/a' : value.toFixed(1));
    lines.push(
      `| ${dialect} (${kept.length} of ${pairs.length} pairs) | ${ms(pick((p) => p.none.load.p99Ms))} / ${ms(pick((p) => p.three.load.p99Ms))} | ${micros(pick((p) => p.none.serverMicros))} / ${micros(pick((p) => p.three.serverMicros))} | **${signed(change)}** | < 5 % | ${change === null ? 'n/a' : change < 0.05 ? 'met' : 'MISSED'} |`,
    );
    notes.push(
      `${dialect}: change per pair ${changes.map(signed).join(', ')}; ${delivered} messages delivered in all (one a minute per destination at most).`,
    );
  }
  return [...lines, '', ...notes].join('\n');
}
