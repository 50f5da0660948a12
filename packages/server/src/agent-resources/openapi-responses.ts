import { type ErrorCode, errorStatus, PROBLEM_CONTENT_TYPE, problem } from '@debrief/protocol';
import { errorGuide } from './error-guide.js';
import type { JsonSchema } from './openapi-schemas.js';

/** Building blocks of the OpenAPI document's operations. */

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * The IETF RateLimit fields of a `rate_limited` answer (draft-ietf-httpapi-ratelimit-headers-10,
 * Structured Fields): the policy that refused the request and when it lets one through again.
 */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    description:
      'Sent with `rate_limited`: the limit that refused the request: `"key"` (token bucket per ingest key: `q` reports at once, refilled over `w` seconds), `"address"` (the same per client address and project) or `"daily"` (reports one address may store per UTC day, a share of the account\'s monthly quota). Example: `"address";q=60;w=6`.',
    schema: { type: 'string' },
    example: '"address";q=60;w=6',
  },
  RateLimit: {
    description:
      'Sent with `rate_limited`: what is left of that limit (`r`) and the seconds until it lets a request through again (`t`, as `Retry-After`). Example: `"address";r=0;t=1`.',
    schema: { type: 'string' },
    example: '"address";r=0;t=1',
  },
};

const WWW_AUTHENTICATE_HEADER = {
  description:
    'The credentials the operation takes (RFC 9110): `Bearer realm="Debrief"` for an API key or the dashboard session, `IngestKey realm="Debrief"` for the `ingest_key` of the body, `Session realm="Debrief"` for the sign-in.',
  required: true,
  schema: { type: 'string' },
  example: 'Bearer realm="Debrief"',
};

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
      ...(status === 401 ? { headers: { 'WWW-Authenticate': WWW_AUTHENTICATE_HEADER } } : {}),
      ...(status === 429 || status === 503
        ? {
            headers: {
              'Retry-After': {
                description: 'Seconds to wait before trying again.',
                required: true,
                schema: { type: 'integer', minimum: 0 },
              },
              ...(group.includes('rate_limited') ? RATE_LIMIT_HEADERS : {}),
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

/**
 * Answers the HTTP layer may give any request, in the problem-details shape: documented as a
 * range on the operations that have no client error of their own.
 */
export const HTTP_LAYER_CLIENT_ERRORS = {
  description:
    'From the HTTP layer: `bad_request` (malformed HTTP), `request_timeout`, `headers_too_large`, or `rate_limited` (too many connections from one address, with `Retry-After`).',
  content: { [PROBLEM_CONTENT_TYPE]: { schema: ref('ProblemDetails') } },
};
