import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { registerRoute } from '../../http/route-contract.js';
import { applyLink, readLink } from './unsubscribe.service.js';
import { confirmationPage, donePage, invalidLinkPage } from './unsubscribe-page.js';

const UnsubscribeQuery = z.object({
  token: z.string().min(1).max(4096),
  /** Absent on a mail client's one-click POST (RFC 8058), which means unsubscribe. */
  action: z.enum(['unsubscribe', 'mute']).optional(),
});

function html(reply: FastifyReply, status: number, body: string) {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send(body);
}

/**
 * The unsubscribe and mute links of notification emails: GET shows what the link can do, POST
 * does it. No sign-in: the signed token is the permission. The POST reads no body (a form's or
 * the RFC 8058 `List-Unsubscribe=One-Click`), so these routes take any body unparsed, in a scope
 * of their own; every other route still parses JSON.
 */
export function registerUnsubscribe(app: FastifyInstance, ctx: AppContext): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 4096 }, (_r, _b, done) =>
      done(null, undefined),
    );
    registerRoute(scope, ctx, {
      contract: { method: 'GET', url: '/v1/notifications/unsubscribe', query: UnsubscribeQuery },
      handler: async ({ reply, ctx, query }) => {
        const claims = await readLink(ctx.db, query.token);
        return claims
          ? html(reply, 200, confirmationPage(claims, query.token))
          : html(reply, 404, invalidLinkPage());
      },
    });
    registerRoute(scope, ctx, {
      contract: { method: 'POST', url: '/v1/notifications/unsubscribe', query: UnsubscribeQuery },
      handler: async ({ reply, ctx, query }) => {
        const claims = await readLink(ctx.db, query.token);
        if (!claims) return html(reply, 404, invalidLinkPage());
        const action = query.action === 'mute' && claims.issueId ? 'mute' : 'unsubscribe';
        await applyLink(ctx.db, claims, action);
        return html(reply, 200, donePage(claims, action));
      },
    });
  });
}
