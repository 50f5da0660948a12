import { ReportEventsQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { readCancelOf } from '../db/read-cancel.js';
import { parseQuery } from '../http/query.js';
import { requireReader } from '../keys/require-reader.js';
import { getOwnedProject } from '../projects/project.service.js';
import { listReportsAfterId } from '../reports/report.repository.js';
import { toWireReport } from '../reports/report.service.js';
import type { StreamHub } from './stream-hub.js';

/** At most this many missed reports are replayed on resume; older ones are in the list API. */
const RESUME_LIMIT = 1000;

export function registerReportEvents(app: FastifyInstance, ctx: AppContext, hub: StreamHub): void {
  app.get<{ Params: { projectId: string } }>('/v1/dashboard/:projectId/events', {
    preHandler: requireReader(ctx),
    handler: async (request, reply) => {
      parseQuery(ReportEventsQuery, request.query);
      const project = await getOwnedProject(ctx, request.accountId, request.params.projectId);
      const header = request.headers['last-event-id'];
      const lastEventId =
        typeof header === 'string' && /^[0-9a-f]{32}$/.test(header) ? header : null;

      // Subscribed (or refused with a 429) before the backlog is read; the hub holds live
      // reports until it is sent, so nothing committed in between is lost or sent twice.
      const subscriber = hub.open(reply, {
        accountId: request.accountId,
        projectId: project.id,
        lastEventId,
      });
      const { stream } = subscriber;
      stream.send(`event: ready\ndata: ${JSON.stringify({ project_id: project.id })}\n\n`);
      try {
        if (lastEventId) {
          const rows = await listReportsAfterId(
            request.ctx.db,
            project.id,
            lastEventId,
            RESUME_LIMIT,
          );
          for (const row of rows) {
            if (!hub.replay(subscriber, toWireReport(row))) return;
            // Paced by the reader: a replay never queues more than Node's high-water mark.
            await stream.whenWritable();
          }
        }
        hub.goLive(subscriber);
      } catch (error) {
        // The response is already a stream: end it, and the client resumes with Last-Event-ID.
        // A replay stopped because the client left (http/read-cancellation.ts) is no fault.
        if (!readCancelOf(request.ctx.db)?.cancelled) {
          request.log.error({ err: error }, 'event stream replay failed');
        }
        stream.end(0);
      }
    },
  });
}
