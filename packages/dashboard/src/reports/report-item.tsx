import type { Report } from '@debrief/protocol';
import { type ReactNode, useState } from 'react';
import { OUTCOME_LABELS } from '../ui/format';
import { RelativeTime } from '../ui/relative-time';

const FOLD_CHARS = 480;
const FOLD_LINES = 8;

function isLong(text: string): boolean {
  if (text.length > FOLD_CHARS) return true;
  let lines = 1;
  for (const char of text) if (char === '\n' && ++lines > FOLD_LINES) return true;
  return false;
}

/**
 * One report. `details` comes from agents, i.e. from anyone holding the public ingest key: it
 * is rendered as a React text node (escaped), never as HTML or Markdown.
 */
export function ReportItem({
  report,
  fresh,
  actions,
}: {
  report: Report;
  fresh: boolean;
  /** Controls under the report (the issue page's "Move…"). */
  actions?: ReactNode;
}) {
  const long = isLong(report.details);
  const [open, setOpen] = useState(false);
  const detailsId = `details-${report.id}`;
  const metadata = report.metadata ? Object.entries(report.metadata) : [];
  return (
    <li
      className={`report report-${report.outcome}${fresh ? ' report-fresh' : ''}`}
      data-report-id={report.id}
      // Focusable by the list's keyboard (j/k), not by Tab: its controls are.
      tabIndex={-1}
    >
      <div className="report-head">
        <span className={`badge badge-${report.outcome}`}>{OUTCOME_LABELS[report.outcome]}</span>
        {report.tool_name ? (
          <span className="report-tool" title="Tool">
            {report.tool_name}
          </span>
        ) : (
          <span className="report-tool muted">no tool named</span>
        )}
        {report.source && (
          <span className="report-source" title="Source">
            via {report.source}
          </span>
        )}
        <span className="report-time">
          <RelativeTime iso={report.created_at} />
        </span>
      </div>
      <p id={detailsId} className={`report-details${long && !open ? ' folded' : ''}`}>
        {report.details}
      </p>
      {long && (
        <button
          type="button"
          className="link-button"
          aria-expanded={open}
          aria-controls={detailsId}
          onClick={() => setOpen((value) => !value)}
        >
          {open ? 'Show less' : 'Show more'}
        </button>
      )}
      {metadata.length > 0 && (
        <dl className="metadata">
          {metadata.map(([key, value]) => (
            <div key={key} className="metadata-item">
              <dt>{key}</dt>
              <dd>{String(value)}</dd>
            </div>
          ))}
        </dl>
      )}
      {actions && <div className="report-actions">{actions}</div>}
    </li>
  );
}
