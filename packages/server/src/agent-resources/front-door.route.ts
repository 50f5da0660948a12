import { ServiceIndex } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import Negotiator from 'negotiator';
import type { AppContext } from '../context.js';
import { type RouteContract, registerRoute } from '../http/route-contract.js';
import { dashboardRoot, sendAppShell } from '../static/dashboard.route.js';
import { renderLlmsTxt } from './llms.route.js';
import { FRONT_DOOR_LINK, renderServiceIndex } from './service-index.js';

/**
 * What `/` can answer, in the order preferred on a tie: a browser (or `Accept: *\/*`, curl's
 * default) gets the app, whose HTML carries the same links in a <noscript> block.
 */
const REPRESENTATIONS = ['text/html', 'application/json', 'text/markdown', 'text/plain'];

const FRONT_DOOR_CONTRACT: RouteContract = {
  method: 'GET',
  url: '/',
  doc: {
    operationId: 'frontDoor',
    tags: ['Agent resources'],
    summary: 'The front door: the dashboard for browsers, an index for agents',
    description:
      'What this URL answers depends on `Accept`: `text/html` (and `*/*`) the dashboard app, whose HTML also lists these resources in a `<noscript>` block; `application/json` a JSON index of the resources and the five outcomes (schema ServiceIndex); `text/markdown` or `text/plain` the llms.txt index. Every answer carries `Vary: Accept` and a `Link` header (RFC 8288) with `rel="service-desc"` → /openapi.json and `rel="service-doc"` → /docs (RFC 8631), `rel="describedby"` → /skill.md and `rel="alternate"` → /llms.txt.',
    security: [],
    responses: {
      '200': {
        description: 'The representation `Accept` asked for.',
        headers: {
          Link: {
            description:
              'The agent resources, each with the type it is served with: service-desc, service-doc, describedby, alternate.',
            required: true,
            schema: { type: 'string' },
            example: FRONT_DOOR_LINK,
          },
          Vary: { description: '`Accept`.', required: true, schema: { type: 'string' } },
        },
        schema: ServiceIndex,
        media: {
          'text/markdown': { schema: { type: 'string' }, example: '# Debrief\n…' },
          'text/plain': { schema: { type: 'string' }, example: '# Debrief\n…' },
          'text/html': { schema: { type: 'string' }, example: '<!doctype html>…' },
        },
      },
    },
    errors: [],
  },
};

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
  registerRoute(app, ctx, {
    contract: FRONT_DOOR_CONTRACT,
    handler: ({ request, reply }) => {
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
    },
  });
}
