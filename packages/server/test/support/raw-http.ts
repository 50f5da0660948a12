import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 response read off a raw socket. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
}

/**
 * A raw TCP connection to a test server, for what fetch cannot do: send half a request, send
 * a body byte by byte, send malformed HTTP, hold many connections from one address.
 */
export class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  /** Resolves when the server has closed (or reset) the connection. */
  readonly closed: Promise<void>;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake();
    });
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        this.wake();
        resolve();
      });
    });
    socket.on('error', () => {}); // a reset is a close, which the tests check
  }

  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) }, () =>
        resolve(new RawConnection(socket)),
      );
      socket.once('error', reject);
    });
  }

  get isClosed(): boolean {
    return this.socket.destroyed || this.socket.readableEnded;
  }

  write(data: string | Buffer): void {
    if (this.socket.writable) this.socket.write(data);
  }

  destroy(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  private async more(deadline: number): Promise<void> {
    if (this.socket.destroyed || this.socket.readableEnded)
      throw new Error(`connection closed; received ${JSON.stringify(this.buffer.toString())}`);
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no response in time; received ${this.buffer.toString()}`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, left);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Reads the next response (Content-Length framed, or up to the close). */
  async response(timeoutMs = 10_000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    let end = this.buffer.indexOf('\r\n\r\n');
    while (end < 0) {
      await this.more(deadline);
      end = this.buffer.indexOf('\r\n\r\n');
    }
    const [statusLine = '', ...lines] = this.buffer.subarray(0, end).toString().split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = headers['content-length'];
    const start = end + 4;
    if (length !== undefined) {
      while (this.buffer.length < start + Number(length)) await this.more(deadline);
    } else {
      while (!this.isClosed) await this.more(deadline).catch(() => {});
    }
    const stop = length !== undefined ? start + Number(length) : this.buffer.length;
    const text = this.buffer.subarray(start, stop).toString();
    this.buffer = this.buffer.subarray(stop);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: Number(statusLine.split(' ')[1]), headers, text, json };
  }
}

/** A complete GET request for a raw connection. */
export function rawGet(path: string, headers: Record<string, string> = {}): string {
  const lines = Object.entries({ host: '127.0.0.1', ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `GET ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}
