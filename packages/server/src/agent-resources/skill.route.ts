import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { ensureSelfProject, getSelfFeedbackTarget } from './self-project.service.js';
import { renderSkillDocument } from './skill-document.js';

export function registerSkill(app: FastifyInstance, ctx: AppContext): void {
  // An operator made with `debrief bootstrap` before the first start gets the instance's own
  // project at start; one who signs up later gets it at the first /skill.md request.
  app.addHook('onReady', async () => {
    try {
      await ensureSelfProject(ctx.db);
    } catch (error) {
      app.log.warn({ err: error }, 'could not create the project for feedback about Debrief');
    }
  });

  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/skill.md',
      doc: {
        operationId: 'skill',
        tags: ['Agent resources'],
        summary: 'Instructions for agents (SKILL.md)',
        description:
          'When and how to report, the exact request, errors and fixes, and a feedback block about Debrief itself.',
        security: [],
        responses: {
          '200': {
            description: 'Markdown for agents.',
            media: {
              'text/markdown': {
                schema: { type: 'string' },
                example: '# Debrief: tell tool developers how their tools worked for you\n…',
              },
            },
          },
        },
        errors: [],
      },
    },
    handler: async ({ reply, ctx }) => {
      const self = await getSelfFeedbackTarget(ctx.db);
      return reply
        .type('text/markdown; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('access-control-allow-origin', '*')
        .send(renderSkillDocument(ctx.config.publicUrl, self?.ingestKey ?? null));
    },
  });
}
