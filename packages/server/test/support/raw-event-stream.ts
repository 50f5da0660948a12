import { type IncomingMessage, request } from 'node:http';
import type { SseEvent } from './sse-reader.js';

/**
 * An event stream read over node:http, whose reading can be paused: Node's HTTP client then
 * stops reading the socket once its buffer is full, so the server sees a reader that has stalled
 * (TCP's window closes), as it would a dashboard tab frozen by the browser.
 */
export interface RawEventStream {
  status: number;
  res: IncomingMessage;
  /** Everything read so far, as text. */
  text(): string;
  /** The events read so far (comments skipped). */
  events(): SseEvent[];
  /** Resolves when the response has ended or its socket closed. */
  ended: Promise<void>;
  pause(): void;
  resume(): void;
  destroy(): void;
}

export function openRawEventStream(
  url: string,
  headers: Record<string, string>,
): Promise<RawEventStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      const ended = new Promise<void>((done) => {
        res.once('end', () => done());
        res.once('close', () => done());
        res.once('error', () => done());
      });
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      resolve({
        status: res.statusCode ?? 0,
        res,
        text: () => text,
        events: () => parseEvents(text),
        ended,
        pause: () => res.pause(),
        resume: () => res.resume(),
        destroy: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Complete events of a Server-Sent Events text; a trailing partial block is left out. */
export function parseEvents(text: string): SseEvent[] {
  const blocks = text.split('\n\n');
  blocks.pop();
  const events: SseEvent[] = [];
  for (const block of blocks) {
    const event: SseEvent = { id: null, event: 'message', data: '' };
    let isEvent = false;
    for (const line of block.split('\n')) {
      if (line.startsWith('id: ')) event.id = line.slice(4);
      else if (line.startsWith('event: ')) event.event = line.slice(7);
      else if (line.startsWith('data: ')) {
        event.data += line.slice(6);
        isEvent = true;
      }
    }
    if (isEvent) events.push(event);
  }
  return events;
}

/** Polls `check` until it holds, for at most `ms` (a bound on waiting, not a speed test). */
export async function eventually(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
