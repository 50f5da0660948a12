import { runGroupingThread } from '../issues/pipeline/index.js';
import { notifyIssueChanges } from './notification-seam.js';

/**
 * The entry of the grouping thread in the server: the pipeline's batches, whose new and
 * reopened issues go to the notifications' outbox in each batch's transaction. Started by
 * grouping-seam.ts groupingThreadOf.
 */
await runGroupingThread(notifyIssueChanges);
