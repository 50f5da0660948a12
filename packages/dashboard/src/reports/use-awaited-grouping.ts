import type { Report, ReportList } from '@debrief/protocol';
import { useCallback, useEffect, useRef } from 'react';
import { useThrottledRefresh } from './use-throttled-refresh';

/** How long a live report is waited for: grouping takes a moment, 2 s at worst under load. */
const WAIT_MS = 10_000;
/** Reloads while waiting: the first soon after the report, then at most this often. */
const RELOAD = { intervalMs: 1500, settleMs: 600 };

/**
 * The reports view filtered by an issue (`?issue_id=`) cannot show a live report at once: it
 * arrives before the grouper has placed it (`issue_id` null), so whether it joins this issue
 * is not known yet. Such a report, if it could join (its tool is the issue's: grouping compares
 * reports of one tool only, so the tools of the issue's reports on screen say it; any tool
 * while none is on screen), is awaited: the list reloads, throttled, until the report is in it
 * or WAIT_MS pass (it joined another issue). A burst of reports is served by the same reloads.
 *
 * Returns `awaitReport(report)`, for the live reports that pass the view's other filters.
 */
export function useAwaitedGrouping(
  list: ReportList | undefined,
  reload: () => void,
): (report: Report) => void {
  const pending = useRef(new Map<string, number>());
  const schedule = useThrottledRefresh(reload, RELOAD);

  // Each answer: what arrived is no longer awaited, what is too old is given up, and the rest
  // asks for another reload.
  useEffect(() => {
    if (!list || pending.current.size === 0) return;
    const now = Date.now();
    for (const report of list.reports) pending.current.delete(report.id);
    for (const [id, deadline] of pending.current) if (deadline < now) pending.current.delete(id);
    if (pending.current.size > 0) schedule();
  }, [list, schedule]);

  return useCallback(
    (report: Report) => {
      if (report.issue_id !== null) return;
      const tools = new Set((list?.reports ?? []).map((item) => item.tool_name));
      if (tools.size > 0 && !tools.has(report.tool_name)) return;
      pending.current.set(report.id, Date.now() + WAIT_MS);
      schedule();
    },
    [list, schedule],
  );
}
