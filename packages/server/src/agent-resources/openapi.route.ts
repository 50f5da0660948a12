import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
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

export function registerOpenApi(app: FastifyInstance, ctx: AppContext): void {
  const documentText = memoByPublicUrl(ctx, (url) => JSON.stringify(buildOpenApiDocument(url)));
  documentText();
  app.get('/openapi.json', async (_request, reply) =>
    reply
      .type('application/json; charset=utf-8')
      .header('access-control-allow-origin', '*')
      .send(documentText()),
  );
}
