import { OUTCOMES } from '@debrief/protocol';
import { useState } from 'react';
import type { ToolStats } from '../api/console.types';
import { formatCount, formatPercent, OUTCOME_LABELS } from '../ui/format';

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
  tools,
  selected,
  onSelect,
}: {
  tools: ToolStats[];
  selected: string | null;
  onSelect(tool: string | null): void;
}) {
  const [showAll, setShowAll] = useState(false);
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

function rateClass(rate: number): string {
  if (rate >= 0.9) return 'rate-good';
  if (rate >= 0.6) return 'rate-fair';
  return 'rate-poor';
}
