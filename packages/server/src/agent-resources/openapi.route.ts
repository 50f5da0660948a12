import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { buildOpenApiDocument } from './openapi-document.js';

/**
 * Builds a value from the public URL once and reuses it. Keyed on the URL because a test server
 * learns its URL only after listening; in production the URL never changes after start.
 */
export function memoByPublicUrl<T>(ctx: AppContext, build: (publicUrl: string) => T): () => T {
  let cached: { url: string; value: T } | null = null;
  return () => {
    if (cached?.url !== ctx.config.publicUrl) {
      cached = { url: ctx.config.publicUrl, value: build(ctx.config.publicUrl) };
    }
    return cached.value;
  };
}

/**
 * Serves the document made from the contracts of every route registered on `app`: built once
 * all are (onReady), and again only if the public URL changes.
 */
export function registerOpenApi(app: FastifyInstance, ctx: AppContext): void {
  const documentText = memoByPublicUrl(ctx, (url) =>
    JSON.stringify(buildOpenApiDocument(url, app.routeContracts)),
  );
  app.addHook('onReady', async () => {
    documentText();
  });
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/openapi.json',
      doc: {
        operationId: 'openapi',
        tags: ['Agent resources'],
        summary: 'This OpenAPI document',
        security: [],
        responses: {
          '200': {
            description: 'OpenAPI 3.1, generated from the schemas the server validates with.',
            media: { 'application/json': { schema: { type: 'object' } } },
          },
        },
        errors: [],
      },
    },
    handler: ({ reply }) =>
      reply
        .type('application/json; charset=utf-8')
        .header('access-control-allow-origin', '*')
        .send(documentText()),
  });
}
