import { METADATA_MAX_KEYS, ReportMetadata } from '@debrief/protocol';

const ADDED_VALUE_MAX = 256;

/**
 * The caller's metadata plus what the router knows about the caller (its user agent). The
 * caller's own keys were validated against the limits already; an added key that would break
 * the 20-key / 2 KiB limits is left out rather than failing a report that was valid as sent.
 */
export function forwardMetadata(
  callerMetadata: Record<string, string | number | boolean> | null,
  added: Record<string, string | undefined>,
): Record<string, string | number | boolean> | null {
  const merged: Record<string, string | number | boolean> = { ...(callerMetadata ?? {}) };
  for (const [key, value] of Object.entries(added)) {
    if (!value) continue;
    const candidate = { ...merged, [key]: value.slice(0, ADDED_VALUE_MAX) };
    if (Object.keys(candidate).length > METADATA_MAX_KEYS) break;
    if (ReportMetadata.safeParse(candidate).success) Object.assign(merged, candidate);
  }
  return Object.keys(merged).length > 0 ? merged : null;
}
