import { DEBRIEF_INSTRUCTIONS, type IntegrateInfo, IntegrateQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { renderFeedbackBlock } from '../agent-resources/feedback-block.js';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { getIngestKey, issueIngestKey } from '../keys/key.service.js';
import { getOwnedProject } from '../projects/project.service.js';
import { requireSession } from '../sessions/require-session.js';
import { expressSnippet, mcpSnippet, openApiFragment } from './integrate-snippets.js';

/**
 * The three integration routes of a project, filled in with its key and this instance's URL.
 * `?source=<skill name>` puts that name in the SKILL.md block's body as `"source"`.
 */
export function registerConsoleIntegrate(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/console/projects/:id/integrate',
      params: IdParams,
      query: IntegrateQuery,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params, query }): Promise<IntegrateInfo> => {
      const { source } = query;
      const project = await getOwnedProject(ctx, request.accountId, params.id);
      const ingestKey =
        (await getIngestKey(ctx.db, project.id)) ?? (await issueIngestKey(ctx.db, project.id));
      const publicUrl = ctx.config.publicUrl;
      return {
        public_url: publicUrl,
        ingest_key: ingestKey,
        skill_block: renderFeedbackBlock({ publicUrl, ingestKey, source }),
        mcp_snippet: mcpSnippet({ publicUrl, ingestKey }),
        mcp_instructions: DEBRIEF_INSTRUCTIONS,
        express_snippet: expressSnippet({ publicUrl, ingestKey }),
        openapi_fragment: openApiFragment(),
      };
    },
  });
}
