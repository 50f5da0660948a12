import { BODY_MAX_BYTES } from '@debrief/protocol';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import pino from 'pino';
import { registerAuthConfig } from './accounts/auth-config.route.js';
import { registerSignin } from './accounts/signin.route.js';
import { registerSignup } from './accounts/signup.route.js';
import { registerDocs } from './agent-resources/docs.route.js';
import { registerFrontDoor } from './agent-resources/front-door.route.js';
import { registerLlms } from './agent-resources/llms.route.js';
import { registerOpenApi } from './agent-resources/openapi.route.js';
import { registerSkill } from './agent-resources/skill.route.js';
import { registerConsoleCreateApiKey } from './console/create-api-key.route.js';
import { registerConsoleCreateForwardingSecret } from './console/create-forwarding-secret.route.js';
import { registerConsoleCreateInvitation } from './console/create-invitation.route.js';
import { registerConsoleCreateProject } from './console/create-project.route.js';
import { registerConsoleGetIngestKey } from './console/get-ingest-key.route.js';
import { registerConsoleGetProjectLimits } from './console/get-project-limits.route.js';
import { registerConsoleIntegrate } from './console/integrate.route.js';
import { registerConsoleListApiKeys } from './console/list-api-keys.route.js';
import { registerConsoleListForwardingSecrets } from './console/list-forwarding-secrets.route.js';
import { registerConsoleListInvitations } from './console/list-invitations.route.js';
import { registerConsoleListProjects } from './console/list-projects.route.js';
import { registerConsoleRedactionSettings } from './console/redaction-settings.route.js';
import { registerConsoleRenameProject } from './console/rename-project.route.js';
import { registerConsoleRevokeApiKey } from './console/revoke-api-key.route.js';
import { registerConsoleRevokeForwardingSecret } from './console/revoke-forwarding-secret.route.js';
import { registerConsoleRevokeInvitation } from './console/revoke-invitation.route.js';
import { registerConsoleRotateIngestKey } from './console/rotate-ingest-key.route.js';
import { registerConsoleSourceStats } from './console/sources.route.js';
import { registerConsoleThrottled } from './console/throttled.route.js';
import { registerConsoleTimeseries } from './console/timeseries.route.js';
import { registerConsoleToolStats } from './console/tools.route.js';
import { registerConsoleUpdateProjectLimits } from './console/update-project-limits.route.js';
import type { AppContext } from './context.js';
import { frameworkErrorHandler, registerErrorHandling } from './errors/error-handler.js';
import { registerHealth } from './health/health.route.js';
import { createHttpGuard } from './http/http-server.js';
import { registerLenientJsonBody } from './http/json-body.js';
import { lazyRequestLogger } from './http/lazy-request-logger.js';
import { registerReadCancellation } from './http/read-cancellation.js';
import { registerRouteContracts } from './http/route-contract.js';
import { registerGetIssue } from './issues/get-issue.route.js';
import { registerGetIssueActivity } from './issues/get-issue-activity.route.js';
import type { IssueActor } from './issues/issue-activity.repository.js';
import { registerListIssues } from './issues/list-issues.route.js';
import { registerMergeIssue } from './issues/merge-issue.route.js';
import { registerListMergedIssues } from './issues/merges/list-merged-issues.route.js';
import { registerUnmergeIssue } from './issues/merges/unmerge-issue.route.js';
import { registerMoveReport } from './issues/move-report.route.js';
import { registerCreateGroupingRule } from './issues/rules/create-grouping-rule.route.js';
import { registerDeleteGroupingRule } from './issues/rules/delete-grouping-rule.route.js';
import { registerListGroupingRules } from './issues/rules/list-grouping-rules.route.js';
import { registerUpdateGroupingRule } from './issues/rules/update-grouping-rule.route.js';
import { registerGetSimilarIssues } from './issues/similar/get-similar-issues.route.js';
import { registerRejectSimilar } from './issues/similar/reject-similar.route.js';
import { registerUpdateIssue } from './issues/update-issue.route.js';
import { registerCreateDestination } from './notifications/create-destination.route.js';
import { registerDeleteDestination } from './notifications/delete-destination.route.js';
import { registerUnsubscribe } from './notifications/email/unsubscribe.route.js';
import { registerGetDestination } from './notifications/get-destination.route.js';
import { registerListDeliveries } from './notifications/list-deliveries.route.js';
import { registerListDestinations } from './notifications/list-destinations.route.js';
import { registerCreateMute } from './notifications/mutes/create-mute.route.js';
import { registerDeleteMute } from './notifications/mutes/delete-mute.route.js';
import { registerListMutes } from './notifications/mutes/list-mutes.route.js';
import { registerTestDestination } from './notifications/test-destination.route.js';
import { registerUpdateDestination } from './notifications/update-destination.route.js';
import { registerListProjects } from './projects/list-projects.route.js';
import { registerReportEvents } from './realtime/report-events.route.js';
import { StreamHub } from './realtime/stream-hub.js';
import { registerListReports } from './reports/list-reports.route.js';
import { registerSubmitReport } from './reports/submit-report.route.js';
import { registerGetSession } from './sessions/get-session.route.js';
import { registerSessions } from './sessions/require-session.js';
import { registerSignout } from './sessions/signout.route.js';
import { registerDashboard } from './static/dashboard.route.js';
import { registerSubmitUsage } from './tool-usage/submit-usage.route.js';
import { registerToolRates } from './tool-usage/tool-rates.route.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's event streams: their counts and buffered bytes (`stats()`), for tests. */
    eventStreams: StreamHub;
  }
}

/** TRUST_PROXY=N: trust the N proxies nearest to the server. */
function hopsTrusted(hops: number) {
  return (_address: string, hop: number) => hop < hops;
}

export interface AppOptions {
  logger?: FastifyBaseLogger;
  /** Heartbeat interval of event streams; default 15 s. Tests shorten it to see one. */
  sseHeartbeatMs?: number;
  /** Where the built dashboard is; default `packages/dashboard/dist` beside this package. */
  dashboardDir?: string;
}

/**
 * Builds the HTTP app without listening, so tests run it in-process. Every route is registered
 * here, one line each: this list is the route table.
 */
export async function createApp(
  ctx: AppContext,
  options: AppOptions = {},
): Promise<FastifyInstance> {
  const log = options.logger ?? pino({ enabled: false });
  const guard = createHttpGuard({
    limits: ctx.config.http,
    publicUrl: ctx.config.publicUrl,
    trustProxy: ctx.config.trustProxy,
    log,
  });
  const app = Fastify({
    loggerInstance: log,
    bodyLimit: BODY_MAX_BYTES,
    trustProxy:
      typeof ctx.config.trustProxy === 'number'
        ? hopsTrusted(ctx.config.trustProxy)
        : ctx.config.trustProxy,
    // Per-request lines are logged by the onResponse hook below, at debug level.
    logController: new LogController({ disableRequestLogging: true }),
    // The HTTP server's limits and the shutdown 503 are the guard's (http/http-server.ts):
    // Fastify's own answers there are not problem details.
    serverFactory: guard.serverFactory,
    clientErrorHandler: guard.clientErrorHandler,
    return503OnClosing: false,
    childLoggerFactory: lazyRequestLogger,
    frameworkErrors: frameworkErrorHandler(ctx.config.publicUrl),
  });
  app.decorateRequest('accountId', '');
  app.decorateRequest('actor', null as unknown as IssueActor);
  // Only where debug lines are written: an async hook on every request costs the hot path.
  if (app.log.level === 'debug' || app.log.level === 'trace') {
    app.addHook('onResponse', async (request, reply) => {
      request.log.debug(
        {
          method: request.method,
          url: request.routeOptions.url,
          status: reply.statusCode,
          ms: reply.elapsedTime,
        },
        'request',
      );
    });
  }

  registerErrorHandling(app, ctx.config.publicUrl);
  registerLenientJsonBody(app);
  registerReadCancellation(app, ctx);
  registerRouteContracts(app);

  // First of the preClose hooks: requests that arrive while the server drains get a 503.
  app.addHook('preClose', async () => guard.markClosing());
  const streams = new StreamHub(ctx.bus, {
    perAccount: ctx.config.streamsPerAccount,
    perInstance: ctx.config.streamsPerInstance,
    bufferCapBytes: ctx.config.streamBufferBytes,
    heartbeatMs: options.sseHeartbeatMs,
  });
  app.decorate('eventStreams', streams);
  // End event streams first, or closing would wait for every open dashboard to leave.
  app.addHook('preClose', async () => streams.closeAll());

  registerHealth(app, ctx);
  registerSubmitReport(app, ctx);
  registerSubmitUsage(app, ctx);
  registerListProjects(app, ctx);
  registerListReports(app, ctx);
  registerToolRates(app, ctx);
  registerReportEvents(app, ctx, streams);
  registerListIssues(app, ctx);
  registerGetIssue(app, ctx);
  registerGetIssueActivity(app, ctx);
  registerUpdateIssue(app, ctx);
  registerMergeIssue(app, ctx);
  registerGetSimilarIssues(app, ctx);
  registerRejectSimilar(app, ctx);
  registerListMergedIssues(app, ctx);
  registerUnmergeIssue(app, ctx);
  registerListGroupingRules(app, ctx);
  registerCreateGroupingRule(app, ctx);
  registerUpdateGroupingRule(app, ctx);
  registerDeleteGroupingRule(app, ctx);
  registerMoveReport(app, ctx);
  registerListDestinations(app, ctx);
  registerCreateDestination(app, ctx);
  registerGetDestination(app, ctx);
  registerUpdateDestination(app, ctx);
  registerDeleteDestination(app, ctx);
  registerTestDestination(app, ctx);
  registerListDeliveries(app, ctx);
  registerListMutes(app, ctx);
  registerCreateMute(app, ctx);
  registerDeleteMute(app, ctx);
  registerUnsubscribe(app, ctx);
  registerSkill(app, ctx);
  registerOpenApi(app, ctx);
  registerDocs(app, ctx);
  registerLlms(app, ctx);
  registerFrontDoor(app, ctx, { dashboardDir: options.dashboardDir });

  registerSessions(app);
  registerAuthConfig(app, ctx);
  registerSignup(app, ctx);
  registerSignin(app, ctx);
  registerGetSession(app, ctx);
  registerSignout(app, ctx);
  registerConsoleListProjects(app, ctx);
  registerConsoleCreateProject(app, ctx);
  registerConsoleRenameProject(app, ctx);
  registerConsoleGetIngestKey(app, ctx);
  registerConsoleRotateIngestKey(app, ctx);
  registerConsoleListApiKeys(app, ctx);
  registerConsoleCreateApiKey(app, ctx);
  registerConsoleRevokeApiKey(app, ctx);
  registerConsoleTimeseries(app, ctx);
  registerConsoleToolStats(app, ctx);
  registerConsoleSourceStats(app, ctx);
  registerConsoleIntegrate(app, ctx);
  registerConsoleGetProjectLimits(app, ctx);
  registerConsoleUpdateProjectLimits(app, ctx);
  registerConsoleThrottled(app, ctx);
  registerConsoleListForwardingSecrets(app, ctx);
  registerConsoleCreateForwardingSecret(app, ctx);
  registerConsoleRevokeForwardingSecret(app, ctx);
  registerConsoleListInvitations(app, ctx);
  registerConsoleCreateInvitation(app, ctx);
  registerConsoleRevokeInvitation(app, ctx);
  registerConsoleRedactionSettings(app, ctx);
  // Last: the dashboard's SPA fallback answers only GET paths no route above claims.
  registerDashboard(app, ctx, { dir: options.dashboardDir });

  await app.ready();
  return app;
}
