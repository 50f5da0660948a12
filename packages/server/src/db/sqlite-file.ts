import { existsSync, statSync } from 'node:fs';
import { StartupError } from '../errors/startup-error.js';

/**
 * Guards around the SQLite file itself. Without them, a database file moved away while its
 * `-wal` stayed behind would become a silent new empty database at the old path, which would
 * then consume the old WAL: the reports committed in it would be lost for good.
 */

/**
 * Before SQLite opens (and would create) the file: if it is missing but a `-wal` or `-shm` of
 * it exists, the database was moved or deleted without them. Creating a database there would
 * replay or discard that WAL, so start-up stops and says what to do.
 */
export function refuseOrphanedJournal(path: string): void {
  if (existsSync(path)) return;
  const orphans = [`${path}-wal`, `${path}-shm`].filter((file) => existsSync(file));
  if (orphans.length === 0) return;
  throw new StartupError(
    `The SQLite database ${path} does not exist, but ${orphans.join(' and ')} ${orphans.length > 1 ? 'do' : 'does'}: the database file was moved or deleted without ${orphans.length > 1 ? 'them' : 'it'}. Debrief will not create a new database beside ${orphans.length > 1 ? 'them' : 'it'}: a -wal file holds committed reports that a new database would lose. Put the database file back at ${path} (or point DATABASE_URL at where it went, and move its -wal and -shm next to it). Only if that data is gone for good, move ${orphans.join(' and ')} out of the way and start again to create an empty database.`,
  );
}

/**
 * Remembers which file (device and inode) is open at `path` and returns a check for /readyz:
 * null while that same file is still at `path`; otherwise why not. A database file moved,
 * replaced or deleted under the running server keeps taking writes through the open handles,
 * but the next start would not find them: the operator has to know now.
 */
export function watchSqliteFile(path: string): () => string | null {
  const opened = statSync(path);
  return () => {
    let now: ReturnType<typeof statSync>;
    try {
      now = statSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return `the database file ${path} is no longer at its path (${code ?? 'stat failed'}): it was moved or deleted while the server runs`;
    }
    if (now.ino !== opened.ino || now.dev !== opened.dev) {
      return `the file at ${path} is not the database this server opened: it was replaced while the server runs`;
    }
    return null;
  };
}
