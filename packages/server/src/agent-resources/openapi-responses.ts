import { type ErrorCode, errorStatus, PROBLEM_CONTENT_TYPE, problem } from '@debrief/protocol';
import { errorGuide } from './error-guide.js';
import type { JsonSchema } from './openapi-schemas.js';

/** Building blocks of the OpenAPI document's operations. */

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The problem-details responses of an operation, one per status, listing exactly its codes. */
export function problemResponses(
  base: string,
  codes: readonly ErrorCode[],
): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(errorStatus(code), [...(byStatus.get(errorStatus(code)) ?? []), code]);
  const responses: Record<string, JsonSchema> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: group.map((code) => `\`${code}\`: ${errorGuide(code).title}.`).join(' '),
      ...(status === 429 || status === 503
        ? {
            headers: {
              'Retry-After': {
                description: 'Seconds to wait before trying again.',
                schema: { type: 'integer', minimum: 0 },
              },
            },
          }
        : {}),
      content: {
        [PROBLEM_CONTENT_TYPE]: {
          schema: {
            allOf: [
              ref('ProblemDetails'),
              { properties: { status: { const: status }, code: { enum: group } } },
            ],
          },
          examples: Object.fromEntries(
            group.map((code) => [
              code,
              { summary: errorGuide(code).title, value: problem(base, code, errorGuide(code).fix) },
            ]),
          ),
        },
      },
    };
  }
  return responses;
}

export const textResponse = (type: string, description: string, example: string) => ({
  '200': { description, content: { [type]: { schema: { type: 'string' }, example } } },
});
