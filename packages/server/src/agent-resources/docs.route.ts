import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { renderDocsPage } from './docs-page.js';
import { memoByPublicUrl } from './openapi.route.js';
import { buildOpenApiDocument } from './openapi-document.js';

export function registerDocs(app: FastifyInstance, ctx: AppContext): void {
  const page = memoByPublicUrl(ctx, (url) =>
    renderDocsPage(buildOpenApiDocument(url, app.routeContracts)),
  );
  app.addHook('onReady', async () => {
    page();
  });
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/docs',
      doc: {
        operationId: 'docs',
        tags: ['Agent resources'],
        summary: 'API reference (HTML), with an anchor per error code (`#error-<code>`)',
        security: [],
        responses: {
          '200': {
            description: 'A self-contained HTML page.',
            media: { 'text/html': { schema: { type: 'string' }, example: '<!doctype html>…' } },
          },
        },
        errors: [],
      },
    },
    handler: ({ reply }) =>
      reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
        .send(page()),
  });
}
