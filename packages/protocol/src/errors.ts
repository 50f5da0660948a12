import { z } from 'zod';

/**
 * The closed set of error codes. `code` is stable and snake_case; clients branch on it.
 * Adding a code means adding it here and to `errorStatus` (the switch is exhaustive).
 */
export const ERROR_CODES = [
  'bad_request',
  'invalid_json',
  'invalid_body',
  'validation_failed',
  'invalid_query',
  'too_many_tool_names',
  'too_many_sources',
  'missing_ingest_key',
  'invalid_ingest_key',
  'secret_key_not_allowed',
  'invalid_forwarding_secret',
  'missing_api_key',
  'invalid_api_key',
  'ingest_key_cannot_read',
  'not_authenticated',
  'invalid_credentials',
  'csrf_failed',
  'signups_closed',
  'invalid_invitation',
  'forbidden',
  'missing_scope',
  'not_found',
  'project_not_found',
  'method_not_allowed',
  'conflict',
  'payload_too_large',
  'request_timeout',
  'headers_too_large',
  'quota_exceeded',
  'rate_limited',
  'too_many_streams',
  'internal_error',
  'service_unavailable',
  'read_timeout',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export function errorStatus(code: ErrorCode): number {
  switch (code) {
    case 'bad_request':
    case 'invalid_json':
    case 'invalid_body':
    case 'validation_failed':
    case 'invalid_query':
    case 'too_many_tool_names':
    case 'too_many_sources':
      return 400;
    case 'missing_ingest_key':
    case 'invalid_ingest_key':
    case 'secret_key_not_allowed':
    case 'invalid_forwarding_secret':
    case 'missing_api_key':
    case 'invalid_api_key':
    case 'ingest_key_cannot_read':
    case 'not_authenticated':
    case 'invalid_credentials':
      return 401;
    case 'csrf_failed':
    case 'signups_closed':
    case 'invalid_invitation':
    case 'forbidden':
    case 'missing_scope':
      return 403;
    case 'not_found':
    case 'project_not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'conflict':
      return 409;
    case 'payload_too_large':
      return 413;
    case 'request_timeout':
      return 408;
    case 'headers_too_large':
      return 431;
    case 'quota_exceeded':
    case 'rate_limited':
    case 'too_many_streams':
      return 429;
    case 'internal_error':
      return 500;
    case 'service_unavailable':
    case 'read_timeout':
      return 503;
    default: {
      const unreachable: never = code;
      throw new Error(`unknown error code ${String(unreachable)}`);
    }
  }
}

/** Short, human titles: the `title` member of problem details (constant per code). */
export const ERROR_TITLES: Record<ErrorCode, string> = {
  bad_request: 'Malformed HTTP request',
  invalid_json: 'Request body is not valid JSON',
  invalid_body: 'Request body must be a JSON object',
  validation_failed: 'Request fields are invalid',
  invalid_query: 'Query parameters are invalid',
  too_many_tool_names: 'Too many distinct tool names in this project',
  too_many_sources: 'Too many distinct sources in this project',
  missing_ingest_key: 'Ingest key missing',
  invalid_ingest_key: 'Ingest key not recognised',
  secret_key_not_allowed: 'Secret key sent as an ingest key',
  invalid_forwarding_secret: 'Forwarding secret not recognised',
  missing_api_key: 'API key missing',
  invalid_api_key: 'API key not recognised',
  ingest_key_cannot_read: 'Ingest keys cannot read',
  not_authenticated: 'Not signed in',
  invalid_credentials: 'Email or password is wrong',
  csrf_failed: 'CSRF check failed',
  signups_closed: 'Sign-ups are closed',
  invalid_invitation: 'Invitation not valid',
  forbidden: 'Forbidden',
  missing_scope: 'API key lacks a scope',
  not_found: 'Not found',
  project_not_found: 'Project not found',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  payload_too_large: 'Request body too large',
  request_timeout: 'Request not received in time',
  headers_too_large: 'Request headers too large',
  quota_exceeded: 'Monthly report quota exceeded',
  rate_limited: 'Too many requests',
  too_many_streams: 'Too many open event streams',
  internal_error: 'Internal server error',
  service_unavailable: 'Service unavailable',
  read_timeout: 'Read took too long and was stopped',
};

export const FieldError = z.object({
  field: z.string(),
  message: z.string(),
});
export type FieldError = z.infer<typeof FieldError>;

/** RFC 9457 problem details, the one error shape of every endpoint. */
export const ProblemDetails = z.object({
  ok: z.literal(false),
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.enum(ERROR_CODES),
  errors: z.array(FieldError).optional(),
});
export type ProblemDetails = z.infer<typeof ProblemDetails>;

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** `type` URI of a problem: the error's entry in the instance's API reference. */
export function problemType(baseUrl: string, code: ErrorCode): string {
  return `${baseUrl.replace(/\/+$/, '')}/docs#error-${code}`;
}

export function problem(
  baseUrl: string,
  code: ErrorCode,
  detail: string,
  errors?: FieldError[],
): ProblemDetails {
  return {
    ok: false,
    type: problemType(baseUrl, code),
    title: ERROR_TITLES[code],
    status: errorStatus(code),
    detail,
    code,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}
