import {
  OUTCOME_MEANINGS,
  OUTCOMES,
  ProblemDetails,
  SubmitReportResponse,
} from '@debrief/protocol';
import { z } from 'zod';
import { FeedbackBody } from './feedback-body.schema.js';
import { DEFAULT_FEEDBACK_PATH } from './feedback-router.js';

/** A JSON Schema for an OpenAPI 3.1 document: the dialect is the document's, so no `$schema`. */
function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
  }) as Record<string, unknown>;
  return rest;
}

/** Problems from this route also carry client codes (`network_error`, `timeout`) on a 502. */
const problemSchema = (() => {
  const schema = jsonSchema(ProblemDetails);
  const properties = { ...(schema.properties as Record<string, unknown>) };
  properties.code = { type: 'string', description: 'Stable snake_case error code; branch on it.' };
  return { ...schema, properties };
})();

const problemResponse = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/problem+json': { schema: problemSchema } },
});

const DESCRIPTION = [
  'Tell the developers of this API how it worked for you. Call it after using (or trying to use) the API: when an endpoint returned an error or a wrong result, when its documentation or output confused you, when you gave up or could not use it at all, when you wished it could do something, and when it worked well.',
  '',
  'outcome is one of:',
  ...OUTCOMES.map((o) => `- \`${o}\`: ${OUTCOME_MEANINGS[o]}`),
].join('\n');

/** OpenAPI 3.1 path item of the feedback route, for the host's own OpenAPI description. */
export const feedbackOpenApi = {
  post: {
    operationId: 'reportFeedback',
    summary: 'Report feedback about this API',
    description: DESCRIPTION,
    tags: ['feedback'],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: jsonSchema(FeedbackBody) } },
    },
    responses: {
      '201': {
        description: 'The feedback was stored.',
        content: { 'application/json': { schema: jsonSchema(SubmitReportResponse) } },
      },
      '400': problemResponse(
        'The body is not JSON or a field is invalid; `detail` says how to fix it.',
      ),
      '413': problemResponse('The body is larger than 64 KiB.'),
      '429': problemResponse('The monthly feedback quota is used up; nothing was stored.', {
        'Retry-After': {
          description: 'Seconds until the quota resets.',
          schema: { type: 'integer' },
        },
      }),
      '502': problemResponse('The feedback service could not be reached; retry later.'),
    },
  },
} as const;

/** `{ [path]: feedbackOpenApi }`, to spread into the `paths` of the host's document. */
export function feedbackOpenApiPaths(
  path: string = DEFAULT_FEEDBACK_PATH,
): Record<string, typeof feedbackOpenApi> {
  return { [path.startsWith('/') ? path : `/${path}`]: feedbackOpenApi };
}
