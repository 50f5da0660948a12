import { runSqliteWriterThread } from './sqlite-writer-thread.js';

/**
 * The entry of a SQLite writer thread that stores reports without grouping them
 * (ISSUE_GROUPING=off, and tests of the writer alone). With grouping, the wiring starts the
 * thread through an entry that gives it a grouper (src/wiring/grouping-writer-worker.ts).
 */
runSqliteWriterThread(null);
