import { OUTCOMES } from '@debrief/protocol';
import type { ToolStats } from '../api/console.types';
import { formatCount, formatPercent, OUTCOME_LABELS } from '../ui/format';

/**
 * Reports per tool and outcome, worst success rate first (the API's order). On a phone the
 * per-outcome columns give way (responsive.css) so the name, count and rate fit; tapping a tool
 * shows its outcomes in the tiles.
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
  if (tools.length === 0) {
    return <p className="muted">No reports in this range yet.</p>;
  }
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
          {tools.map((tool) => (
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
    </div>
  );
}

function rateClass(rate: number): string {
  if (rate >= 0.9) return 'rate-good';
  if (rate >= 0.6) return 'rate-fair';
  return 'rate-poor';
}
