import { OUTCOMES } from '@debrief/protocol';
import { useState } from 'react';
import type { ToolRate, ToolStats } from '../api/console.types';
import {
  formatCount,
  formatPercent,
  formatPerThousand,
  formatRate,
  OUTCOME_LABELS,
} from '../ui/format';

/** Rows shown before "Show all": the worst tools, which are the ones to read first. */
const FIRST_ROWS = 8;

/**
 * Reports per tool and outcome, worst success rate first (the API's order). Capped at
 * FIRST_ROWS rows (and the selected tool, wherever it ranks) until the user asks for all, so
 * a project with many tools does not push the list down the page. On a phone the per-outcome
 * columns give way (responsive.css) so the name, count and rate fit; tapping a tool shows its
 * outcomes in the tiles.
 */
export function ToolsTable({
  tools: reported,
  rates,
  selected,
  onSelect,
}: {
  tools: ToolStats[];
  /** Call counts per tool (GET …/tools), when the project's hosts send them. */
  rates?: ToolRate[];
  selected: string | null;
  onSelect(tool: string | null): void;
}) {
  const [showAll, setShowAll] = useState(false);
  const counted = new Map((rates ?? []).map((rate) => [rate.tool_name, rate]));
  const withCalls = (rates ?? []).some((rate) => rate.calls !== null);
  // Tools whose calls were counted but that no report names yet: listed after the reported ones.
  const named = new Set(reported.map((tool) => tool.tool_name));
  const tools: ToolStats[] = [
    ...reported,
    ...(rates ?? [])
      .filter((rate) => rate.calls !== null && !named.has(rate.tool_name))
      .map((rate) => ({
        tool_name: rate.tool_name,
        total: 0,
        success: 0,
        failure: 0,
        confusing: 0,
        gave_up: 0,
        request: 0,
        success_rate: null,
      })),
  ];
  if (tools.length === 0) {
    return <p className="muted">No reports in this range yet.</p>;
  }
  const capped = !showAll && tools.length > FIRST_ROWS;
  const rows = capped
    ? tools.filter((tool, index) => index < FIRST_ROWS || tool.tool_name === selected)
    : tools;
  return (
    <div className="table-scroll">
      <table className="table tools-table">
        <caption>
          Success rate = success ÷ (success + failure + confusing + gave up): the share of the
          tool's uses that worked. Requests ask for something new and are not counted; a tool with
          only requests has no rate (–).
          {withCalls &&
            ' Calls and errors are counted by your hosts (the MCP add-on, the Express router); error rate = errors ÷ calls.'}
        </caption>
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col" className="num">
              Reports
            </th>
            {OUTCOMES.map((outcome) => (
              <th key={outcome} scope="col" className="num outcome-col">
                <span className={`dot dot-${outcome}`} aria-hidden="true" />
                {OUTCOME_LABELS[outcome]}
              </th>
            ))}
            <th scope="col" className="num">
              Success rate
            </th>
            {withCalls && (
              <>
                <th scope="col" className="num">
                  Calls
                </th>
                <th scope="col" className="num">
                  Error rate
                </th>
                <th scope="col" className="num">
                  <abbr title="Reports per 1,000 calls">Per 1k calls</abbr>
                </th>
              </>
            )}
          </tr>
        </thead>
        <tbody>
          {rows.map((tool) => (
            <tr
              key={tool.tool_name ?? '(none)'}
              aria-selected={selected !== null && tool.tool_name === selected}
            >
              <th scope="row">
                {tool.tool_name === null ? (
                  <span className="muted">no tool named</span>
                ) : (
                  <button
                    type="button"
                    className="link-button"
                    title={`Show only ${tool.tool_name}`}
                    onClick={() => onSelect(tool.tool_name === selected ? null : tool.tool_name)}
                  >
                    {tool.tool_name}
                  </button>
                )}
              </th>
              <td className="num">{formatCount(tool.total)}</td>
              {OUTCOMES.map((outcome) => (
                <td
                  key={outcome}
                  className={tool[outcome] === 0 ? 'num outcome-col zero' : 'num outcome-col'}
                >
                  {formatCount(tool[outcome])}
                </td>
              ))}
              <td className="num">
                {tool.success_rate === null ? (
                  <span className="muted" title="Only requests: no use of the tool to rate">
                    –
                  </span>
                ) : (
                  <span className={`rate ${rateClass(tool.success_rate)}`}>
                    {formatPercent(tool.success_rate)}
                  </span>
                )}
              </td>
              {withCalls && <CallCells rate={counted.get(tool.tool_name)} />}
            </tr>
          ))}
        </tbody>
      </table>
      {tools.length > FIRST_ROWS && (
        <button
          type="button"
          className="link-button"
          aria-expanded={!capped}
          onClick={() => setShowAll(capped)}
        >
          {capped ? `Show all ${formatCount(tools.length)} tools` : 'Show fewer'}
        </button>
      )}
    </div>
  );
}

/** Calls, error rate and reports per 1,000 calls; – where no counts arrived. */
function CallCells({ rate }: { rate: ToolRate | undefined }) {
  const none = (
    <span className="muted" title="No call counts for this tool">
      –
    </span>
  );
  return (
    <>
      <td className="num" data-testid="tool-calls">
        {rate?.calls == null ? none : formatCount(rate.calls)}
      </td>
      <td className="num" data-testid="tool-error-rate">
        {rate?.error_rate == null ? none : formatRate(rate.error_rate)}
      </td>
      <td className="num" data-testid="tool-reports-per-1000">
        {rate?.reports_per_1000_calls == null
          ? none
          : formatPerThousand(rate.reports_per_1000_calls)}
      </td>
    </>
  );
}

function rateClass(rate: number): string {
  if (rate >= 0.9) return 'rate-good';
  if (rate >= 0.6) return 'rate-fair';
  return 'rate-poor';
}
