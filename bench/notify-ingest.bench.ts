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
import { type PairedRun, pairedSteady, pairedTable } from './paired-steady.js';
import type { RoundSetup, SteadyOptions } from './steady.bench.js';

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

/** Ingest with three destinations on `report.created` against none, in paired rounds. */
export async function benchNotifyIngest(
  dialect: string,
  make: () => Promise<BenchDatabase>,
  options: SteadyOptions,
  log: (line: string) => void,
): Promise<PairedRun> {
  const receivers = await startReceivers();
  try {
    const run = await pairedSteady(dialect, make, options, log, {
      name: 'notifications',
      withoutLabel: 'no destination',
      withLabel: 'three destinations',
      setup: () => threeDestinations(receivers.hook, receivers.smtpUrl),
    });
    const delivered = receivers.delivered();
    return {
      ...run,
      note: () => `${delivered} messages delivered in all (one a minute per destination at most)`,
    };
  } finally {
    await receivers.close();
  }
}

export const notifyIngestTable = (runs: PairedRun[], options: SteadyOptions) =>
  pairedTable(runs, options, 'with three destinations on `report.created` against none', 0.05);
