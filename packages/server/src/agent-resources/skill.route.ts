import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
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

  app.get('/skill.md', async (_request, reply) => {
    const self = await getSelfFeedbackTarget(ctx.db);
    return reply
      .type('text/markdown; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('access-control-allow-origin', '*')
      .send(renderSkillDocument(ctx.config.publicUrl, self?.ingestKey ?? null));
  });
}
