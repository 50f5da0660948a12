import { ReportEventsQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { READ_AUTH_ERROR_CODES } from '../agent-resources/error-guide.js';
import {
  EXAMPLE_ID,
  EXAMPLE_PROJECT_ID,
  EXAMPLE_REPORT,
  PROJECT_ID_DESCRIPTION,
  READ_SECURITY,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { readCancelOf } from '../db/read-cancel.js';
import { ProjectParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { requireReader } from '../keys/require-reader.js';
import { getOwnedProject } from '../projects/project.service.js';
import { listReportsAfterId } from '../reports/report.repository.js';
import { toWireReport } from '../reports/report.service.js';
import type { StreamHub } from './stream-hub.js';

/** At most this many missed reports are replayed on resume; older ones are in the list API. */
const RESUME_LIMIT = 1000;

export function registerReportEvents(app: FastifyInstance, ctx: AppContext, hub: StreamHub): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/dashboard/:projectId/events',
      params: ProjectParams,
      query: ReportEventsQuery,
      doc: {
        operationId: 'streamReportEvents',
        tags: ['Realtime'],
        summary: 'Stream new reports (Server-Sent Events)',
        description:
          'First an `event: ready`, then one `event: report` per new report: `id:` is the report id, `data:` the Report JSON (schema Report). Also `event: issue` when an issue is created, regresses (a resolved issue got a new report), changes status or is merged: `data:` is `{"change", "issue", "into"?}` (`change` one of `created`, `regressed`, `status`, `merged`; `issue` as in IssueList without its list-only fields (`trend`, `muted`, `possible_duplicate_of`), `into` the issue id a merge went into); it has no `id:` and is not replayed on resume (GET …/issues has the current state). Reconnect with `Last-Event-ID` to replay what was missed (up to 1,000 reports). Takes no query parameters: any is refused with 400 `invalid_query`. A reader that falls behind by more than the server\'s buffer cap (1 MiB by default) gets a final `event: overflow` whose `data` is `{"last_event_id", "detail"}` and the stream ends: reconnect with that `Last-Event-ID` (EventSource does so by itself) to receive everything after it. Each account may hold a limited number of streams at once (20 by default), and each server instance a limited total (1,000): past either, 429 `too_many_streams` with `Retry-After`.',
        security: READ_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION },
        headers: [
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            description: 'Id of the last report received; the reports after it are sent first.',
            schema: { type: 'string', pattern: '^[0-9a-f]{32}$' },
          },
        ],
        responses: {
          '200': {
            description: 'An endless event stream.',
            media: {
              'text/event-stream': {
                schema: {
                  type: 'string',
                  description: 'Events whose `data` is a Report (see components.schemas.Report).',
                },
                example: `event: ready\ndata: {"project_id":"${EXAMPLE_PROJECT_ID}"}\n\nevent: report\nid: ${EXAMPLE_ID}\ndata: ${JSON.stringify(EXAMPLE_REPORT)}\n\n`,
              },
            },
          },
        },
        errors: [
          'invalid_query',
          ...READ_AUTH_ERROR_CODES,
          'project_not_found',
          'too_many_streams',
          'internal_error',
          'service_unavailable',
          'read_timeout',
        ],
      },
    },
    auth: requireReader,
    handler: async ({ request, reply, ctx, params }) => {
      const project = await getOwnedProject(ctx, request.accountId, params.projectId);
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
          const rows = await listReportsAfterId(ctx.db, project.id, lastEventId, RESUME_LIMIT);
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
        if (!readCancelOf(ctx.db)?.cancelled) {
          request.log.error({ err: error }, 'event stream replay failed');
        }
        stream.end(0);
      }
    },
  });
}
