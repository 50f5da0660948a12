import type { DestinationFilter, NotificationType, OUTCOMES, SpikeRule } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { EnqueueNotifications } from '../notification-port.js';

/** What a producer needs to know of a destination that listens to its event. */
export interface SubscribedDestination {
  id: string;
  projectId: string;
  filter: DestinationFilter;
  spike: SpikeRule;
  /** `digest.daily`: the UTC hour it is sent; null for the default (9). */
  digestHour: number | null;
}

/**
 * The active destinations (not paused, failing or gone) subscribed to `type`, across projects.
 * The destinations' repository serves it; the producers only read through it.
 */
export type FindSubscribers = (
  db: Kysely<DB>,
  type: NotificationType,
) => Promise<SubscribedDestination[]>;

/** What every producer takes. */
export interface ProducerDeps {
  db: Kysely<DB>;
  enqueue: EnqueueNotifications;
  findSubscribers: FindSubscribers;
  /** The dashboard's base URL (PUBLIC_URL), for the links in a digest's lists. */
  publicUrl: string;
}

export const DEFAULT_DIGEST_HOUR = 9;

export function issueUrl(publicUrl: string, projectId: string, issueId: string): string {
  return `${publicUrl}/projects/${projectId}/issues/${issueId}`;
}

/** Does a report pass a destination's filter (every field it sets must match)? */
export function passesFilter(
  filter: DestinationFilter,
  report: { outcome: string; tool_name: string | null; source: string | null },
): boolean {
  return (
    (filter.outcome === undefined ||
      filter.outcome === (report.outcome as (typeof OUTCOMES)[number])) &&
    (filter.tool_name === undefined || filter.tool_name === report.tool_name) &&
    (filter.source === undefined || filter.source === report.source)
  );
}

export function byProject<T extends { projectId: string }>(items: readonly T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const list = map.get(item.projectId);
    if (list) list.push(item);
    else map.set(item.projectId, [item]);
  }
  return map;
}
