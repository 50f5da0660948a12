import type { IncomingMessage } from 'node:http';

export type BodyResult =
  | { kind: 'ok'; value: unknown }
  | { kind: 'empty' }
  | { kind: 'invalid_json'; reason: string }
  | { kind: 'too_large' }
  | { kind: 'aborted' };

/** What a host's body parser may have left on the request. */
type ParsedRequest = IncomingMessage & { body?: unknown; _body?: boolean };

/**
 * The request's JSON body, whoever read it. If the stream is still unread, it is read here (so
 * the router works without `express.json()`, and also when a host parser skipped the request
 * for its Content-Type: agents often forget the header). If a host parser already consumed it,
 * its result is used: an object as is, a string or Buffer (express.text/raw) parsed as JSON.
 */
export async function readJsonBody(req: ParsedRequest, limitBytes: number): Promise<BodyResult> {
  if (req.readableEnded || req._body === true) return fromParsed(req.body);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    discard(req);
    return { kind: 'too_large' };
  }
  const raw = await readRaw(req, limitBytes);
  if (raw.kind !== 'ok') return raw;
  return parseText(raw.text);
}

function fromParsed(body: unknown): BodyResult {
  if (typeof body === 'string') return parseText(body);
  if (Buffer.isBuffer(body)) return parseText(body.toString('utf8'));
  if (body === undefined || body === null) return { kind: 'empty' };
  // Express 4's body-parser sets `{}` for a body it did not parse; an empty object and an
  // empty body fail validation the same way, so the difference does not matter here.
  return { kind: 'ok', value: body };
}

function parseText(text: string): BodyResult {
  if (text.trim() === '') return { kind: 'empty' };
  try {
    return { kind: 'ok', value: JSON.parse(text) };
  } catch (error) {
    return { kind: 'invalid_json', reason: error instanceof Error ? error.message : 'unparsable' };
  }
}

function readRaw(
  req: IncomingMessage,
  limitBytes: number,
): Promise<{ kind: 'ok'; text: string } | { kind: 'too_large' } | { kind: 'aborted' }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Parameters<typeof resolve>[0]) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        discard(req);
        finish({ kind: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish({ kind: 'ok', text: Buffer.concat(chunks).toString('utf8') });
    const onError = () => finish({ kind: 'aborted' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onError);
  });
}

/** Lets the rest of an oversized body flow away, so the connection can carry the 413 answer. */
function discard(req: IncomingMessage): void {
  req.on('data', () => {});
  req.resume();
}
