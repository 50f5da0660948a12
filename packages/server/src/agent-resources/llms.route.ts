import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';

/**
 * The llms.txt index (https://llmstxt.org): a title, a summary, then links with one line each.
 * Also what `/` answers to `Accept: text/markdown` or `text/plain`.
 */
export function renderLlmsTxt(publicUrl: string): string {
  const base = publicUrl.replace(/\/+$/, '');
  return `# Debrief

> Debrief collects short feedback reports from AI agents about the tools they use (outcome success, failure, confusing, gave_up or request, plus details), so tool developers can fix what goes wrong. Agents submit with one POST ${base}/v1/reports carrying the tool's public ingest key.

## Docs

- [Agent instructions](${base}/skill.md): when and how to send a report, the outcomes, the exact request, errors and how to fix them
- [OpenAPI description](${base}/openapi.json): OpenAPI 3.1 document of every public endpoint
- [API reference](${base}/docs): human-readable reference with every error code
- [Read API](${base}/docs#op-listReports): for developers with a secret API key; GET /v1/dashboard/{projectId}/reports answers ${DEFAULT_PAGE_LIMIT} reports a page unless \`limit\` says otherwise (at most ${MAX_PAGE_LIMIT}); to read them all, follow \`pagination.next_cursor\` with \`cursor\`

## Optional

- [JSON index](${base}/): the same resources and the five outcomes as JSON, with \`Accept: application/json\`
- [Health](${base}/healthz): liveness check
`;
}

export function registerLlms(app: FastifyInstance, ctx: AppContext): void {
  const text = renderLlmsTxt(ctx.config.publicUrl);
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/llms.txt',
      doc: {
        operationId: 'llms',
        tags: ['Agent resources'],
        summary: 'Index of the agent resources (llms.txt)',
        security: [],
        responses: {
          '200': {
            description: 'Markdown-formatted index, served as plain text.',
            media: { 'text/plain': { schema: { type: 'string' }, example: '# Debrief\n…' } },
          },
        },
        errors: [],
      },
    },
    handler: ({ reply }) =>
      reply.type('text/plain; charset=utf-8').header('access-control-allow-origin', '*').send(text),
  });
}
