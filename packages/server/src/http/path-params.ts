import { z } from 'zod';

/**
 * Path parameters of the dashboard API, as documented: plain strings, since an id of the wrong
 * shape is answered like an unknown one (404) by the service that looks it up.
 */
export const ProjectParams = z.object({ projectId: z.string() });
export const ProjectIssueParams = z.object({ projectId: z.string(), issueId: z.string() });
export const ProjectReportParams = z.object({ projectId: z.string(), reportId: z.string() });
/** The dashboard console's routes of one thing: `/v1/console/projects/:id/…`, `…/api-keys/:id`. */
export const IdParams = z.object({ id: z.string() });
export const ProjectRuleParams = z.object({ projectId: z.string(), ruleId: z.string() });
