import { closeSync, fdatasync, fdatasyncSync, fstatSync, openSync, statSync } from 'node:fs';

/** How long a commit of the writer may wait for its fsync, at most (SQLITE_SYNC=normal). */
export const WAL_SYNC_MS = 50;

/** `fs.fdatasync`'s shape: the fsync that createWalSync runs. */
export type Fdatasync = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;

export interface WalSync {
  /** After a commit: the WAL is fsynced within `ms`, one fsync for every commit until then. */
  committed(): void;
  /** Before the connection closes: fsyncs what is pending now, on the calling thread (a
   * failure goes to `onFailure`, so the connection still closes). */
  close(): void;
}

/**
 * The fsync of the report writer's commits under `SQLITE_SYNC=normal` (sqlite-writer-thread.ts).
 * The writer's connection then commits with `synchronous = NORMAL`: a commit is written to the
 * WAL file, so it is in the OS page cache and survives `kill -9` of the server (the DESIGN
 * contract), and its 201 leaves without waiting for the disk. This fsyncs the WAL at most `ms`
 * after a commit, in libuv's thread pool while the writer goes on storing: a power cut or a
 * kernel crash can lose at most the last `ms` of reports, never the file's consistency (SQLite's
 * guarantee under NORMAL). The same trade as Redis's `appendfsync everysec` or PostgreSQL's
 * `synchronous_commit = off`, with a shorter window.
 *
 * fsync works on the file, not the descriptor: one fsync covers every commit written before it,
 * whichever connection wrote it. The descriptor is checked against the path before each fsync,
 * because SQLite deletes the WAL when its last connection closes and a later one creates a new
 * file. `onFailure` hears of a failed fsync; the writer then returns to `synchronous = FULL`.
 */
export function createWalSync(
  walPath: string,
  ms: number,
  onFailure: (error: Error) => void,
  sync: Fdatasync = fdatasync,
): WalSync {
  let fd: number | null = null;
  let timer: NodeJS.Timeout | null = null;
  let syncing = false;
  let closed = false;
  /** When the first commit not yet covered by an fsync (started) was made, or null. */
  let pendingSince: number | null = null;

  /** The descriptor of the WAL at the path now, or null if there is none (nothing written). */
  function walFd(): number | null {
    let ino: number;
    try {
      ino = statSync(walPath).ino;
    } catch {
      return null;
    }
    if (fd !== null && fstatSync(fd).ino === ino) return fd;
    if (fd !== null) closeSync(fd);
    fd = null; // until the open succeeds
    fd = openSync(walPath, 'r');
    return fd;
  }

  function schedule(): void {
    if (timer || syncing || pendingSince === null) return;
    timer = setTimeout(start, Math.max(0, pendingSince + ms - Date.now()));
  }

  function start(): void {
    timer = null;
    let target: number | null;
    try {
      target = walFd();
    } catch (error) {
      onFailure(error as Error);
      return;
    }
    pendingSince = null;
    if (target === null) return;
    syncing = true;
    sync(target, (error) => {
      syncing = false;
      if (closed) return;
      if (error) {
        onFailure(error);
        return;
      }
      // Commits made during this fsync may have been written after it began.
      schedule();
    });
  }

  return {
    committed() {
      pendingSince ??= Date.now();
      schedule();
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      try {
        const target = walFd();
        if (target !== null) fdatasyncSync(target);
      } catch (error) {
        onFailure(error as Error);
      } finally {
        if (fd !== null) closeSync(fd);
        fd = null;
      }
    },
  };
}
