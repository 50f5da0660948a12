import { z } from 'zod';
import { ProblemDetails } from './errors.js';
import { FeedbackBody } from './feedback-route.schema.js';
import { OUTCOME_MEANINGS, OUTCOMES } from './outcomes.js';
import { SubmitReportResponse } from './report.schema.js';

/** Where `@debrief/express` mounts the route unless told otherwise. */
export const DEFAULT_FEEDBACK_PATH = '/feedback';

export const DEFAULT_FEEDBACK_OPERATION_ID = 'reportFeedback';

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

/** The 201 answer: the report id, and the issue with the developers' note when there is one. */
const createdSchema = (() => {
  const schema = jsonSchema(SubmitReportResponse.omit({ redactions: true }));
  const properties = {
    ...(schema.properties as Record<string, unknown>),
    issue: {
      type: 'object',
      description:
        'Present when the report joined a known problem the developers answered: its status and their note for agents (a workaround, a fixed version). Follow the note.',
      properties: {
        id: { type: 'string' },
        status: { type: 'string', description: 'open, resolved or ignored' },
        agent_note: { type: 'string' },
      },
      required: ['id', 'status'],
    },
  };
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
  'When the answer has an `issue` with an `agent_note`, the developers already know the problem: follow the note.',
  '',
  'outcome is one of:',
  ...OUTCOMES.map((o) => `- \`${o}\`: ${OUTCOME_MEANINGS[o]}`),
].join('\n');

const retryAfter = {
  'Retry-After': {
    description: 'Seconds to wait before sending again.',
    schema: { type: 'integer' },
  },
};

/**
 * OpenAPI 3.1 operation of `@debrief/express`'s feedback route, for the host's own description
 * (and the Integrate page's fragment). `security: []`
 * because the route needs no credentials: without it, a document with root-level security
 * would make agents (and mock servers) believe it does.
 */
export function feedbackOperation(operationId: string = DEFAULT_FEEDBACK_OPERATION_ID) {
  return {
    operationId,
    summary: 'Report feedback about this API',
    description: DESCRIPTION,
    tags: ['feedback'],
    security: [] as never[],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: jsonSchema(FeedbackBody) } },
    },
    responses: {
      '201': {
        description: 'The feedback was stored.',
        content: { 'application/json': { schema: createdSchema } },
      },
      '400': problemResponse(
        'The body is not JSON or a field is invalid; `detail` says how to fix it.',
      ),
      '413': problemResponse('The body is larger than 64 KiB.'),
      '429': problemResponse(
        'Too many reports (`rate_limited`) or the monthly feedback quota is used up (`quota_exceeded`); nothing was stored.',
        retryAfter,
      ),
      '500': problemResponse('The feedback could not be processed; nothing was stored.'),
      '502': problemResponse(
        'The feedback service is unreachable or misconfigured; nothing was stored. Retry later.',
      ),
      '503': problemResponse(
        'The feedback service is briefly unavailable; retry later.',
        retryAfter,
      ),
    },
  };
}

/** OpenAPI 3.1 path item of the feedback route, with the default `operationId`. */
export const feedbackOpenApi = { post: feedbackOperation() };

/**
 * `{ [path]: { post } }`, to spread into the `paths` of the host's document. Give each mount its
 * own `operationId`: two operations with one id make the document invalid.
 */
export function feedbackOpenApiPaths(
  path: string = DEFAULT_FEEDBACK_PATH,
  options: { operationId?: string } = {},
): Record<string, { post: ReturnType<typeof feedbackOperation> }> {
  return {
    [path.startsWith('/') ? path : `/${path}`]: { post: feedbackOperation(options.operationId) },
  };
}
