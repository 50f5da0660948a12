/**
 * The baseline of the ingest benchmark: a bare `node:http` server that does the least a real
 * ingest endpoint must do — read the body, JSON.parse it, answer 201 with an id. Run as a child
 * process (`node --import tsx bench/bare-server.ts`), it prints its port on stdout.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"ok":false}');
      return;
    }
    res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ ok: true, id: randomBytes(16).toString('hex') }));
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
