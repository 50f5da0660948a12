import { useEffect, useState } from 'react';
import type { ConsoleProject, Integration } from '../api/console.types';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { CodeBlock } from '../ui/copy-button';
import { ErrorNotice, Loading } from '../ui/notice';
import { EXPRESS_OPTIONS, MCP_OPTIONS, OptionsTable } from './integrate-options';

/**
 * A report's `source` limit (`LABEL_MAX_LENGTH` in @debrief/protocol, which the server checks).
 * Not imported: the module that defines it builds zod schemas, which would add zod to the bundle
 * (about 27 kB gzipped, a third more).
 */
const SKILL_NAME_MAX_LENGTH = 200;

/** Wait this long after the last keystroke before asking for the block with the new name. */
const TYPING_PAUSE_MS = 300;

function useSettled(value: string): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), TYPING_PAUSE_MS);
    return () => window.clearTimeout(timer);
  }, [value]);
  return settled;
}

/** The three ways to wire agents, filled in with this project's key and the public URL. */
export function IntegratePage({ project }: { project: ConsoleProject }) {
  const { api } = useSession();
  // The skill's name becomes the block's `source`; the server renders the block with it.
  const [skillName, setSkillName] = useState('');
  const source = useSettled(skillName.trim());
  const path = `/v1/console/projects/${project.id}/integrate${
    source ? `?${new URLSearchParams({ source })}` : ''
  }`;
  const info = useResource(path, () => api.get<Integration>(path));
  // The previous answer stays on screen while a new name loads; an error replaces the page
  // only when there is nothing to show.
  if (info.error && !info.data) return <ErrorNotice error={info.error} onRetry={info.reload} />;
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
        <label className="field skill-name">
          <span>Skill name (optional)</span>
          <input
            name="skill-name"
            maxLength={SKILL_NAME_MAX_LENGTH}
            placeholder="e.g. weather-forecast"
            autoComplete="off"
            spellCheck={false}
            value={skillName}
            onChange={(event) => setSkillName(event.target.value)}
          />
          <small>
            Sent as <code>source</code> with every report from this block, so you can tell this
            skill's reports apart in the Reports tab.
          </small>
        </label>
        {info.error ? <ErrorNotice error={info.error} /> : null}
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
          Adds a <code>report_feedback</code> tool to your MCP server with <code>@debrief/mcp</code>{' '}
          (SDK 1.x; <code>@debrief/mcp/v2</code> for SDK 2.x). When a report matches an issue you
          left a note on, the agent gets the note back in the tool's answer.
        </p>
        <CodeBlock code={data.mcp_snippet} label="MCP snippet" />
        <h3 className="subhead">Instructions for agents</h3>
        <p className="muted">
          Pass these as the server's <code>instructions</code> when you create it (
          <code>DEBRIEF_INSTRUCTIONS</code>, or <code>withDebriefInstructions(yours)</code> after
          your own): clients hand them to the model, which is what makes agents report at all.
        </p>
        <CodeBlock code={data.mcp_instructions} label="MCP instructions" wrap />
        <h3 className="subhead">Capture and counting</h3>
        <OptionsTable label="MCP options" rows={MCP_OPTIONS} />
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
        <h3 className="subhead">Options</h3>
        <OptionsTable label="Express options" rows={EXPRESS_OPTIONS} />
        <h3 className="subhead">OpenAPI fragment</h3>
        <p className="muted">
          Add this path to your app's own OpenAPI description so agents discover the route (
          <code>feedbackOpenApiPaths(path, {'{ operationId }'})</code> builds it in code). It
          declares <code>security: []</code>: the route needs no credentials.
        </p>
        <CodeBlock code={data.openapi_fragment} label="OpenAPI fragment" />
      </section>
    </div>
  );
}
