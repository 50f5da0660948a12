import { runSqliteWriterThread } from './sqlite-writer-thread.js';

/**
 * The entry of a SQLite writer thread that stores reports without grouping them or announcing
 * quota marks: tests of the writer alone. The server starts its thread through the wiring's
 * entry, which gives it a grouper and the quota hook (src/wiring/sqlite-writer-worker.ts).
 */
runSqliteWriterThread();
