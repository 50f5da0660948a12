import type { VersionRate } from '../api/console.types';
import { formatCount, formatDay, formatPerThousand, formatRate } from '../ui/format';

const BAR_WIDTH = 120;
const BAR_HEIGHT = 10;

/**
 * One tool per server version, the earliest first: calls, error rate (as a bar, so a release
 * that broke or fixed the tool stands out) and reports per 1,000 calls. Versions come from the
 * usage counts' `server_version` and the reports' `metadata.server_version`.
 */
export function VersionCompare({ tool, versions }: { tool: string; versions: VersionRate[] }) {
  if (versions.length === 0) {
    return <p className="muted small">No call counts or reports for {tool} in this range.</p>;
  }
  const worst = Math.max(0.0001, ...versions.map((v) => v.error_rate ?? 0));
  return (
    <section className="table-scroll-region" aria-label={`${tool} by server version`}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling table without controls must be reachable by keyboard */}
      <div className="table-scroll" tabIndex={0}>
        <table className="table version-table" data-testid="version-compare">
          <caption>
            {tool} by server version, earliest first: does a release change its error rate or the
            reports per 1,000 calls?
          </caption>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Seen</th>
              <th scope="col" className="num">
                Calls
              </th>
              <th scope="col">Error rate</th>
              <th scope="col" className="num">
                Reports
              </th>
              <th scope="col" className="num">
                <abbr title="Reports per 1,000 calls">Per 1k calls</abbr>
              </th>
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => (
              <tr key={v.server_version ?? '(none)'}>
                <th scope="row">
                  {v.server_version ?? <span className="muted">no version named</span>}
                </th>
                <td className="small">
                  {v.first_seen && v.last_seen
                    ? `${formatDay(v.first_seen.slice(0, 10))} – ${formatDay(v.last_seen.slice(0, 10))}`
                    : '–'}
                </td>
                <td className="num">{v.calls === null ? '–' : formatCount(v.calls)}</td>
                <td>
                  {v.error_rate === null ? (
                    <span className="muted">–</span>
                  ) : (
                    <span className="version-rate">
                      <svg
                        width={BAR_WIDTH}
                        height={BAR_HEIGHT}
                        viewBox={`0 0 ${BAR_WIDTH} ${BAR_HEIGHT}`}
                        aria-hidden="true"
                        className="version-bar"
                      >
                        <rect className="version-bar-track" width={BAR_WIDTH} height={BAR_HEIGHT} />
                        <rect
                          className="version-bar-fill"
                          width={Math.max(
                            v.error_rate > 0 ? 2 : 0,
                            (v.error_rate / worst) * BAR_WIDTH,
                          )}
                          height={BAR_HEIGHT}
                        />
                      </svg>{' '}
                      {formatRate(v.error_rate)}
                    </span>
                  )}
                </td>
                <td className="num">{formatCount(v.reports)}</td>
                <td className="num">
                  {v.reports_per_1000_calls === null
                    ? '–'
                    : formatPerThousand(v.reports_per_1000_calls)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
