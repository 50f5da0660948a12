import { type Report, ReportEventsQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseQuery } from '../http/query.js';
import { requireReader } from '../keys/require-reader.js';
import { getOwnedProject } from '../projects/project.service.js';
import { listReportsAfterId } from '../reports/report.repository.js';
import { toWireReport } from '../reports/report.service.js';
import { formatReportEvent, openEventStream, type StreamRegistry } from './event-stream.js';

/** At most this many missed reports are replayed on resume; older ones are in the list API. */
const RESUME_LIMIT = 1000;

export function registerReportEvents(
  app: FastifyInstance,
  ctx: AppContext,
  streams: StreamRegistry,
  options: { heartbeatMs?: number } = {},
): void {
  app.get<{ Params: { projectId: string } }>('/v1/dashboard/:projectId/events', {
    preHandler: requireReader(ctx),
    handler: async (request, reply) => {
      parseQuery(ReportEventsQuery, request.query);
      const project = await getOwnedProject(ctx.db, request.accountId, request.params.projectId);
      const header = request.headers['last-event-id'];
      const lastEventId =
        typeof header === 'string' && /^[0-9a-f]{32}$/.test(header) ? header : null;

      // Subscribe before reading the backlog and hold live reports until it is sent, so that
      // nothing committed in between is lost; a live report already replayed is skipped.
      const replayed = new Set<string>();
      let held: Report[] | null = [];
      const sendLive = (report: Report) => {
        if (!replayed.has(report.id)) stream.write(formatReportEvent(report));
      };
      const unsubscribe = ctx.bus.subscribe(project.id, (report) => {
        if (held) held.push(report);
        else sendLive(report);
      });
      const stream = openEventStream(request, reply, streams, unsubscribe, options.heartbeatMs);
      stream.write(`event: ready\ndata: ${JSON.stringify({ project_id: project.id })}\n\n`);
      if (lastEventId) {
        await ctx.reportWriter.flush();
        for (const row of await listReportsAfterId(ctx.db, project.id, lastEventId, RESUME_LIMIT)) {
          replayed.add(row.id);
          stream.write(formatReportEvent(toWireReport(row)));
        }
      }
      const backlog = held;
      held = null;
      for (const report of backlog) sendLive(report);
    },
  });
}
