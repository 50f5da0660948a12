import type { FastifyInstance } from 'fastify';
import Negotiator from 'negotiator';
import type { AppContext } from '../context.js';
import { dashboardRoot, sendAppShell } from '../static/dashboard.route.js';
import { renderLlmsTxt } from './llms.route.js';
import { FRONT_DOOR_LINK, renderServiceIndex } from './service-index.js';

/**
 * What `/` can answer, in the order preferred on a tie: a browser (or `Accept: *\/*`, curl's
 * default) gets the app, whose HTML carries the same links in a <noscript> block.
 */
const REPRESENTATIONS = ['text/html', 'application/json', 'text/markdown', 'text/plain'];

/**
 * `GET /`, the front door: the dashboard for browsers, and for an agent given only the
 * instance URL, `Link` headers plus content negotiation — `Accept: application/json` gets a
 * JSON index, `text/markdown` or `text/plain` the llms.txt index. `negotiator` (the parser
 * behind Express's and Koa's `accepts`) weighs q-values and wildcards, which a substring test
 * gets wrong (`text/markdown, text/html;q=0.1`).
 */
export function registerFrontDoor(
  app: FastifyInstance,
  ctx: AppContext,
  options: { dashboardDir?: string | undefined } = {},
): void {
  const root = dashboardRoot(options.dashboardDir);
  const llms = renderLlmsTxt(ctx.config.publicUrl);
  const index = JSON.stringify(renderServiceIndex(ctx.config.publicUrl));
  app.get('/', async (request, reply) => {
    reply.header('link', FRONT_DOOR_LINK).header('vary', 'Accept');
    // Nothing acceptable (e.g. `Accept: image/png`): the app, as before negotiation existed.
    const chosen = new Negotiator(request).mediaType(REPRESENTATIONS) ?? 'text/html';
    if (chosen === 'text/html') return sendAppShell(request, reply, root);
    reply.headers({
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'access-control-allow-origin': '*',
    });
    if (chosen === 'application/json') {
      return reply.type('application/json; charset=utf-8').send(index);
    }
    return reply.type(`${chosen}; charset=utf-8`).send(llms);
  });
}
