import { feedbackOpenApiPaths } from '@debrief/protocol';

/**
 * Copy-paste snippets of the integrate page, with the project's real ingest key and the
 * instance's PUBLIC_URL. Ingest keys are public by design, so printing them is safe.
 */
export interface SnippetOptions {
  publicUrl: string;
  ingestKey: string;
}

export function mcpSnippet({ publicUrl, ingestKey }: SnippetOptions): string {
  return `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { attach, withDebriefInstructions } from '@debrief/mcp';
// SDK 2.x: McpServer from '@modelcontextprotocol/server', attach from '@debrief/mcp/v2'.

// The instructions tell agents when to call report_feedback and to follow your notes.
const server = new McpServer(
  { name: 'my-tools', version: '1.0.0' },
  { instructions: withDebriefInstructions('What your own tools are for.') },
);
// … register your own tools here …

attach(server, {
  ingestKey: '${ingestKey}',
  baseUrl: '${publicUrl}',
  capture: true, // report your tools' thrown errors and isError answers (deduplicated)
  countCalls: true, // calls and errors per tool, for error rates (on by default)
});
`;
}

export function expressSnippet({ publicUrl, ingestKey }: SnippetOptions): string {
  return `import express from 'express';
import { feedbackRouter } from '@debrief/express';

const app = express();

// POST /feedback {"outcome", "details", "tool_name"?} is forwarded to Debrief; mount it
// before your routes so it can count them and capture their 5xx answers.
const feedback = feedbackRouter({
  ingestKey: '${ingestKey}',
  baseUrl: '${publicUrl}',
  capture: true, // report your routes' 5xx answers (deduplicated)
  countRequests: true, // requests and 5xx per route, for error rates (on by default)
  // forwardingSecret: process.env.DEBRIEF_FORWARDING_SECRET, // limits per agent, not per host
});
app.use(feedback);

const listener = app.listen(3000);
process.on('SIGTERM', () => listener.close(() => feedback.close()));
`;
}

/**
 * The OpenAPI 3.1 path item of the Express route, the very one `@debrief/express` exports, to
 * paste under `paths` of the app's own OpenAPI description (agents read it to find the route).
 */
export function openApiFragment(path = '/feedback'): string {
  return JSON.stringify(feedbackOpenApiPaths(path), null, 2);
}
