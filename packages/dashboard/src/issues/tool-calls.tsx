import type { ToolRates } from '../api/console.types';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { formatCount, formatPerThousand, formatRate } from '../ui/format';

/**
 * The tool, with the calls behind its reports (all time): ten failures in ten calls is
 * an outage, ten in a million is noise. Shown only where the project's hosts send call counts.
 */
export function ToolCalls({ projectId, tool }: { projectId: string; tool: string }) {
  const { api } = useSession();
  const path = `/v1/dashboard/${projectId}/tools?tool_name=${encodeURIComponent(tool)}`;
  const rates = useResource(path, () => api.get<ToolRates>(path));
  const rate = rates.data?.tools[0];
  if (!rate || rate.calls === null) return null;
  return (
    <p className="tool-calls small" data-testid="issue-tool-calls">
      <strong>{tool}</strong>: {formatCount(rate.calls)} calls
      {rate.error_rate !== null && <>, {formatRate(rate.error_rate)} errors</>}
      {rate.reports_per_1000_calls !== null && (
        <>, {formatPerThousand(rate.reports_per_1000_calls)} reports per 1,000 calls</>
      )}{' '}
      <span className="muted">(all time)</span>
    </p>
  );
}
