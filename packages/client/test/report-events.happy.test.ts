import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReader } from '@debrief/client';
import type { Report } from '@debrief/protocol';
import { describe, expect, it } from 'vitest';
import { closeServer, listen } from './local-servers.js';

const report = (n: number): Report => ({
  id: n.toString(16).padStart(32, '0'),
  outcome: 'success',
  tool_name: null,
  source: null,
  details: `report ${n}`,
  metadata: null,
  created_at: '2026-11-21T10:00:00Z',
  redactions: 0,
  issue_id: null,
  issue_reason: null,
});

const event = (r: Report) => `id: ${r.id}\nevent: report\ndata: ${JSON.stringify(r)}\n\n`;

describe('events(): dropped streams', () => {
  it('reconnects with Last-Event-ID after the stream ends mid-event, and misses nothing', async () => {
    // A stand-in for a Debrief instance that restarts: the first connection ends after one
    // report, the second resumes after the id the client says it has seen.
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (seen.length === 1) {
        // Ends in the middle of a second event, which must not be delivered half-read.
        res.end(
          `retry: 10\n\nevent: ready\ndata: {}\n\n: heartbeat\n\n${event(report(1))}id: ${report(9).id}\nevent: report\ndata: {"id":`,
        );
      } else {
        res.write(`event: ready\ndata: {}\n\n${event(report(2))}`);
      }
    });
    await listen(server);
    const { port } = server.address() as AddressInfo;
    try {
      const reader = createReader({ apiKey: 'wk_sk_test', baseUrl: `http://127.0.0.1:${port}` });
      const got: string[] = [];
      for await (const r of reader.events('p1')) {
        got.push(r.details);
        if (got.length === 2) break;
      }
      expect(got).toEqual(['report 1', 'report 2']);
      expect(seen[0]?.authorization).toBe('Bearer wk_sk_test');
      expect(seen[0]?.['last-event-id']).toBeUndefined();
      expect(seen[1]?.['last-event-id']).toBe(report(1).id);
    } finally {
      await closeServer(server);
    }
  });

  it('ends without reconnecting when reconnect is false', async () => {
    let connections = 0;
    const server = createServer((_req, res) => {
      connections += 1;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(event(report(7)));
    });
    await listen(server);
    const { port } = server.address() as AddressInfo;
    try {
      const reader = createReader({ apiKey: 'wk_sk_test', baseUrl: `http://127.0.0.1:${port}` });
      const got: Report[] = [];
      for await (const r of reader.events('p1', { reconnect: false })) got.push(r);
      expect(got.map((r) => r.details)).toEqual(['report 7']);
      expect(connections).toBe(1);
    } finally {
      await closeServer(server);
    }
  });
});
