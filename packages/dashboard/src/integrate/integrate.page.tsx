import type { ConsoleProject, Integration } from '../api/console.types';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { CodeBlock } from '../ui/copy-button';
import { ErrorNotice, Loading } from '../ui/notice';

/** The three ways to wire agents, filled in with this project's key and the public URL. */
export function IntegratePage({ project }: { project: ConsoleProject }) {
  const { api } = useSession();
  const path = `/v1/console/projects/${project.id}/integrate`;
  const info = useResource(path, () => api.get<Integration>(path));
  if (info.error) return <ErrorNotice error={info.error} onRetry={info.reload} />;
  if (!info.data) return <Loading />;
  const data = info.data;
  return (
    <div className="stack integrate">
      <p className="lead">
        Pick the route that matches how agents reach your tool. Each snippet already carries this
        project's ingest key and <code>{data.public_url}</code>; reports show up in the Reports tab
        the moment they are sent.
      </p>
      <section className="card" aria-labelledby="skill-title">
        <h2 id="skill-title" className="card-title">
          <span className="step">1</span> SKILL.md or a system prompt
        </h2>
        <p className="muted">
          Paste this block into the instructions agents read. It asks them to report after using a
          tool — and also when they could not use it at all.
        </p>
        <CodeBlock
          code={data.skill_block}
          label="SKILL.md feedback block"
          copyLabel="Copy block"
          wrap
        />
      </section>
      <section className="card" aria-labelledby="mcp-title">
        <h2 id="mcp-title" className="card-title">
          <span className="step">2</span> MCP server
        </h2>
        <p className="muted">
          Adds a <code>report_feedback</code> tool to your MCP server with <code>@debrief/mcp</code>
          .
        </p>
        <CodeBlock code={data.mcp_snippet} label="MCP snippet" />
      </section>
      <section className="card" aria-labelledby="express-title">
        <h2 id="express-title" className="card-title">
          <span className="step">3</span> REST API (Express)
        </h2>
        <p className="muted">
          Mounts <code>POST /feedback</code> in your Express app with <code>@debrief/express</code>,
          so agents report through the API they already call.
        </p>
        <CodeBlock code={data.express_snippet} label="Express snippet" />
        <h3 className="subhead">OpenAPI fragment</h3>
        <p className="muted">
          Add this path to your app's own OpenAPI description so agents discover the route.
        </p>
        <CodeBlock code={data.openapi_fragment} label="OpenAPI fragment" />
      </section>
    </div>
  );
}
