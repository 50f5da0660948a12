/**
 * The framework's floor in the ingest benchmark: an empty Fastify route, as the real server is
 * built on (DESIGN.md), that does what the bare baseline does — parse the JSON body (Fastify's
 * own parser), answer 201 with an id — and nothing of Debrief's. What it loses against bare
 * `node:http` is the framework's share, before a report is validated or stored: the ceiling any
 * Debrief ingest on this machine could reach. Run as a child process like bare-server.ts, it
 * prints its port on stdout.
 */
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.post('/v1/reports', async (_request, reply) => {
  reply.code(201);
  return { ok: true, id: randomBytes(16).toString('hex') };
});

await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
