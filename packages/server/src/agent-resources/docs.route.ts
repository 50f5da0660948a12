import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { renderDocsPage } from './docs-page.js';
import { memoByPublicUrl } from './openapi.route.js';
import { buildOpenApiDocument } from './openapi-document.js';

export function registerDocs(app: FastifyInstance, ctx: AppContext): void {
  const page = memoByPublicUrl(ctx, (url) => renderDocsPage(buildOpenApiDocument(url)));
  page();
  app.get('/docs', async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .send(page()),
  );
}
