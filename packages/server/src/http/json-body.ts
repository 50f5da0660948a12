import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error.js';

/**
 * Every body is parsed as JSON whatever its Content-Type says, or when it has none: agents
 * calling with curl often forget `-H 'Content-Type: application/json'` (DESIGN §2).
 */
export function registerLenientJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      // Some Windows tools prefix UTF-8 with a byte-order mark, which JSON.parse refuses.
      done(null, JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'unparsable';
      done(
        new ApiError(
          'invalid_json',
          `The request body is not valid JSON (${reason}). Send one JSON object, e.g. {"ingest_key":"wk_…","outcome":"success","details":"…"}, with double-quoted keys and strings.`,
        ),
        undefined,
      );
    }
  });
}
