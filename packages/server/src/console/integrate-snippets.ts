import { ProblemDetails, ReportInput, SubmitReportResponse } from '@debrief/protocol';
import { toJsonSchema } from '../agent-resources/openapi-schemas.js';

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
import { attach } from '@debrief/mcp';

const server = new McpServer({ name: 'my-tools', version: '1.0.0' });
// … register your own tools here …

// Adds the report_feedback tool: agents tell you how your tools worked for them.
attach(server, {
  ingestKey: '${ingestKey}',
  baseUrl: '${publicUrl}',
});
`;
}

export function expressSnippet({ publicUrl, ingestKey }: SnippetOptions): string {
  return `import express from 'express';
import { feedbackRouter } from '@debrief/express';

const app = express();

// POST /feedback {"outcome", "details", "tool_name"?} is forwarded to Debrief.
app.use(
  feedbackRouter({
    ingestKey: '${ingestKey}',
    baseUrl: '${publicUrl}',
  }),
);

app.listen(3000);
`;
}

function problemResponse(description: string) {
  return {
    description,
    content: { 'application/problem+json': { schema: toJsonSchema(ProblemDetails, 'output') } },
  };
}

/**
 * The OpenAPI 3.1 path item of the Express route, generated from the protocol schemas, to
 * paste under `paths` of the app's own OpenAPI description (agents read it to find the route).
 */
export function openApiFragment(path = '/feedback'): string {
  const fragment = {
    [path]: {
      post: {
        operationId: 'reportFeedback',
        summary: 'Report how a tool of this API worked for you (agents)',
        description:
          'After using a tool of this API, send what happened: success, failure, confusing, gave_up or request. Also report when the tools could not be used at all.',
        requestBody: {
          required: true,
          // The router sets `source` itself (its option, else the Host header), so callers do not send it.
          content: {
            'application/json': {
              schema: toJsonSchema(ReportInput.omit({ source: true }), 'input'),
            },
          },
        },
        responses: {
          '201': {
            description: 'The report was stored.',
            content: {
              'application/json': { schema: toJsonSchema(SubmitReportResponse, 'output') },
            },
          },
          '400': problemResponse('A field is invalid; detail says which and how to fix it.'),
          '502': problemResponse('Debrief could not be reached; nothing was stored.'),
        },
      },
    },
  };
  return JSON.stringify(fragment, null, 2);
}
