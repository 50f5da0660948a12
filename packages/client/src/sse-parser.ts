/** One dispatched Server-Sent Event. `id` is the last event id seen so far on the stream. */
export interface SseEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * Incremental parser of the `text/event-stream` format (WHATWG HTML §9.2.6), written here so
 * the client needs neither EventSource (absent from Node 20) nor a dependency, and can send an
 * Authorization header, which EventSource cannot.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private eventType = '';
  /** The id of the last dispatched event: what to send as `Last-Event-ID` on reconnect. */
  lastEventId: string | undefined;
  /** Reconnection delay the server asked for with `retry:`, in ms. */
  retryMs: number | undefined;
  /** `id:` seen in the event being received; it counts only once the event is complete. */
  private idBuffer: string | undefined;

  constructor(lastEventId?: string) {
    this.lastEventId = lastEventId;
    this.idBuffer = lastEventId;
  }

  /** Forgets a partly received event (on reconnect); keeps the last event id and retry. */
  discardPending(): void {
    this.buffer = '';
    this.data = [];
    this.eventType = '';
    this.idBuffer = this.lastEventId;
  }

  /** Feeds decoded text; returns the events completed by it. */
  push(chunk: string): SseEvent[] {
    this.buffer += chunk;
    const events: SseEvent[] = [];
    const newline = /\r\n|\r|\n/g;
    let position = 0;
    for (;;) {
      newline.lastIndex = position;
      const match = newline.exec(this.buffer);
      if (!match) break;
      // A lone CR at the very end may be the first half of a CRLF split across chunks.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break;
      this.line(this.buffer.slice(position, match.index), events);
      position = match.index + match[0].length;
    }
    this.buffer = this.buffer.slice(position);
    return events;
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      this.lastEventId = this.idBuffer;
      if (this.data.length > 0) {
        events.push({
          event: this.eventType || 'message',
          data: this.data.join('\n'),
          id: this.lastEventId,
        });
      }
      this.data = [];
      this.eventType = '';
      return;
    }
    if (line.startsWith(':')) return; // a comment: the server's heartbeat
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.idBuffer = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break; // unknown fields are ignored, as the format requires
    }
  }
}
