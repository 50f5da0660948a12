import { OUTCOMES } from '@debrief/protocol';
import { useState } from 'react';
import type { ToolStats } from '../api/console.types';
import { formatCount, formatPercent, OUTCOME_LABELS } from '../ui/format';
import { OutcomeLegend } from './outcome-legend';

/** Rows shown before "Show all": the worst tools, which are the ones to read first. */
const FIRST_ROWS = 8;

/**
 * Reports per tool and outcome, worst success rate first (the API's order). Capped at
 * FIRST_ROWS rows (and the selected tool, wherever it ranks) until the user asks for all, so
 * a project with many tools does not push the list down the page.
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
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col" className="num">
              Reports
            </th>
            {OUTCOMES.map((outcome) => (
              <th key={outcome} scope="col" className="num" title={OUTCOME_LABELS[outcome]}>
                <span className={`dot dot-${outcome}`} aria-hidden="true" />
                <span className="th-short">{OUTCOME_LABELS[outcome]}</span>
              </th>
            ))}
            <th scope="col" className="num">
              Success
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
                <td key={outcome} className={tool[outcome] === 0 ? 'num zero' : 'num'}>
                  {formatCount(tool[outcome])}
                </td>
              ))}
              <td className="num">
                <span className={`rate ${rateClass(tool.success_rate)}`}>
                  {formatPercent(tool.success_rate)}
                </span>
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
      <OutcomeLegend />
    </div>
  );
}

function rateClass(rate: number): string {
  if (rate >= 0.9) return 'rate-good';
  if (rate >= 0.6) return 'rate-fair';
  return 'rate-poor';
}
