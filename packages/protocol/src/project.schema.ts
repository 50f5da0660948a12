import { z } from 'zod';
import { WireTimestamp } from './report.schema.js';

export const Project = z.object({
  id: z.string().regex(/^[0-9a-f]{32}$/),
  name: z.string(),
  created_at: WireTimestamp,
});
export type Project = z.infer<typeof Project>;

export const ProjectList = z.array(Project);

export const PROJECT_NAME_MAX_LENGTH = 100;
