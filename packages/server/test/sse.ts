/** A minimal Server-Sent Events reader over fetch, for tests. */
export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

export interface SseStream {
  status: number;
  /** Waits for the next event of this name (default `report`), at most `timeoutMs`. */
  next(event?: string, timeoutMs?: number): Promise<SseEvent>;
  comments: string[];
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const waiters: Array<() => void> = [];
  let buffer = '';
  if (response.body && response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end = buffer.indexOf('\n\n');
          while (end >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event: SseEvent = { event: 'message', data: '' };
            let isEvent = false;
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) comments.push(line.slice(1).trim());
              else if (line.startsWith('event: ')) {
                event.event = line.slice(7);
                isEvent = true;
              } else if (line.startsWith('id: ')) event.id = line.slice(4);
              else if (line.startsWith('data: ')) {
                event.data += line.slice(6);
                isEvent = true;
              }
            }
            if (isEvent) events.push(event);
            for (const wake of waiters.splice(0)) wake();
            end = buffer.indexOf('\n\n');
          }
        }
      } catch {
        // aborted
      }
    })();
  }
  return {
    status: response.status,
    comments,
    async next(name = 'report', timeoutMs = 2000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = events.findIndex((e) => e.event === name);
        if (index >= 0) return events.splice(index, 1)[0]!;
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new Error(`no "${name}" event within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, remaining);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    close: () => controller.abort(),
  };
}
