import { ToolStatsQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseQuery } from '../http/query.js';
import { requireSession } from '../sessions/require-session.js';
import { projectToolStats } from './console.service.js';

/**
 * Without from/to, all time: the table then agrees with the unfiltered tiles. A page at a time
 * (`page`, `limit` ≤ 100), with `pagination.total` tools in all.
 */
export function registerConsoleToolStats(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { id: string } }>('/v1/console/projects/:id/tools', {
    preHandler: requireSession(ctx),
    handler: async (request) => {
      const query = parseQuery(ToolStatsQuery, request.query);
      return projectToolStats(request.ctx, request.accountId, request.params.id, query);
    },
  });
}
