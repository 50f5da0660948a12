import { runGroupingThread } from './grouping-worker.js';

/** The grouping thread's entry when nothing else listens to issue changes (grouping-thread.ts). */
await runGroupingThread();
