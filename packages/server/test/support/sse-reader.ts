/** A minimal Server-Sent Events reader over fetch, for tests: records events and comments. */
export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

export interface SseReader {
  status: number;
  events: SseEvent[];
  comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Resolves with the first event matching, waiting at most `ms`; rejects after that. */
  waitFor(match: (event: SseEvent) => boolean, ms: number, what?: string): Promise<SseEvent>;
  waitForComment(match: (comment: string) => boolean, ms: number): Promise<string>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseReader> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const ended = (async () => {
    if (!response.body) return;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event: SseEvent = { id: null, event: 'message', data: '' };
          let isEvent = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) {
              event.data += line.slice(6);
              isEvent = true;
            }
          }
          if (isEvent) events.push(event);
          notify();
          cut = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // aborted by close()
    } finally {
      notify();
    }
  })();

  function waitUntil<T>(find: () => T | undefined, ms: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found === undefined) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(
          new Error(
            `no ${what} within ${ms} ms (events: ${events.map((e) => e.event).join(', ')})`,
          ),
        );
      }, ms);
      waiters.add(check);
      check();
    });
  }

  return {
    status: response.status,
    events,
    comments,
    ended,
    waitFor: (match, ms, what = 'matching event') => waitUntil(() => events.find(match), ms, what),
    waitForComment: (match, ms) => waitUntil(() => comments.find(match), ms, 'matching comment'),
    close: () => controller.abort(),
  };
}
