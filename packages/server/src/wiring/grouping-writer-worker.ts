import { createArrivalGrouper } from '../issues/pipeline/index.js';
import { runSqliteWriterThread } from '../reports/write-path/index.js';

/**
 * The entry of the SQLite writer thread when reports are grouped into issues: the write path's
 * thread, given the pipeline's grouper of arriving reports. The one place the two meet in that
 * thread; started by grouping-seam.ts.
 */
runSqliteWriterThread(createArrivalGrouper);
