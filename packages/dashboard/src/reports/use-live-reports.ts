import type { IssueEvent, Report } from '@debrief/protocol';
import { useEffect, useRef, useState } from 'react';

export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

const RETRY_DELAYS_MS = [1000, 2000, 5000, 10_000, 30_000];

/**
 * Subscribes to the project's report stream. The browser's EventSource resumes by itself
 * (sending Last-Event-ID) after a dropped connection; when the server refuses outright, the
 * source is closed for good, so it is rebuilt here with a backoff and `onResync` asks the page
 * to reload what it may have missed.
 */
export function useLiveReports(
  projectId: string,
  onReport: (report: Report) => void,
  onResync: () => void,
  /** `event: issue` (created, regressed, status, merged): the issues views listen to it. */
  onIssue?: (event: IssueEvent) => void,
): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const handlers = useRef({ onReport, onResync, onIssue });
  handlers.current = { onReport, onResync, onIssue };

  useEffect(() => {
    let source: EventSource | null = null;
    let retryTimer: number | undefined;
    let attempt = 0;
    let stopped = false;

    const connect = () => {
      source = new EventSource(`/v1/dashboard/${projectId}/events`);
      source.addEventListener('ready', () => {
        if (attempt > 0) handlers.current.onResync();
        attempt = 0;
        setStatus('live');
      });
      source.addEventListener('report', (event) => {
        try {
          handlers.current.onReport(JSON.parse((event as MessageEvent<string>).data) as Report);
        } catch {
          // A malformed event is skipped; the next reload shows the report anyway.
        }
      });
      source.addEventListener('issue', (event) => {
        try {
          const data = JSON.parse((event as MessageEvent<string>).data) as IssueEvent;
          handlers.current.onIssue?.(data);
        } catch {
          // As for reports: the next reload shows the change anyway.
        }
      });
      source.onerror = () => {
        if (stopped) return;
        setStatus('reconnecting');
        if (source?.readyState === EventSource.CLOSED) {
          source.close();
          const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)];
          attempt += 1;
          retryTimer = window.setTimeout(connect, delay);
        } else {
          // The browser is retrying by itself; count it so the next `ready` resyncs.
          attempt = Math.max(attempt, 1);
        }
      };
    };
    setStatus('connecting');
    connect();
    return () => {
      stopped = true;
      window.clearTimeout(retryTimer);
      source?.close();
    };
  }, [projectId]);

  return status;
}
