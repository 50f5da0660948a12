import type { AuthConfig } from '../api/console.types';
import { useResource } from '../api/use-resource';
import { Link } from '../router';
import { useSession } from '../session-context';
import { CodeBlock } from '../ui/copy-button';
import { ErrorNotice, Loading } from '../ui/notice';

/** The empty state of a new project: a real command that sends the first report. */
export function FirstReportGuide({ projectId }: { projectId: string }) {
  const { api } = useSession();
  const setup = useResource(`first-report-${projectId}`, async () => {
    const [key, config] = await Promise.all([
      api.get<{ ingest_key: string }>(`/v1/console/projects/${projectId}/ingest-key`),
      api.get<AuthConfig>('/v1/auth/config').catch(() => null),
    ]);
    return { ingestKey: key.ingest_key, publicUrl: config?.public_url || window.location.origin };
  });
  const command = setup.data
    ? [
        `curl -X POST ${setup.data.publicUrl.replace(/\/+$/, '')}/v1/reports \\`,
        `  -H 'content-type: application/json' \\`,
        `  -d '{"ingest_key":"${setup.data.ingestKey}","outcome":"success","tool_name":"hello","details":"My first report"}'`,
      ].join('\n')
    : '';
  return (
    <section className="card empty-guide" aria-labelledby="first-report">
      <h3 id="first-report">No reports yet</h3>
      <p>Send one now to see it arrive here, live — no reload needed. Run this in a terminal:</p>
      {setup.data ? (
        <CodeBlock code={command} label="curl command" wrap />
      ) : setup.error ? (
        <ErrorNotice error={setup.error} onRetry={setup.reload} />
      ) : (
        <Loading />
      )}
      <p className="muted">
        Then wire your agents: the <Link to={`/projects/${projectId}/integrate`}>Integrate</Link>{' '}
        tab has a SKILL.md block, an MCP tool and an Express route, filled in with this project's
        key.
      </p>
    </section>
  );
}
