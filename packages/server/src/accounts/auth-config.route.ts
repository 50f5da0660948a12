import type { AuthConfig } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { isFirstSignup } from './signup.service.js';

/** What the sign-in page needs before anyone is signed in. */
export function registerAuthConfig(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: { method: 'GET', url: '/v1/auth/config' },
    handler: async ({ ctx }): Promise<AuthConfig> => ({
      signups: ctx.config.signups,
      first_signup: await isFirstSignup(ctx),
      public_url: ctx.config.publicUrl,
    }),
  });
}
