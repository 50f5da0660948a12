import {
  API_KEY_PREFIX,
  BODY_MAX_BYTES,
  DETAILS_MAX_LENGTH,
  ERROR_CODES,
  ERROR_TITLES,
  type ErrorCode,
  errorStatus,
  INGEST_KEY_PREFIX,
  LABEL_MAX_LENGTH,
  MAX_PAGE_LIMIT,
  METADATA_MAX_BYTES,
  METADATA_MAX_KEYS,
  OUTCOMES,
} from '@debrief/protocol';

/**
 * How to fix each error, written for an agent. Shared by /skill.md and /docs (`#error-<code>`).
 * Partial on purpose: a code added to the protocol later still gets an entry (its title) rather
 * than breaking the build of whoever adds it.
 */
const FIXES: Partial<Record<ErrorCode, string>> = {
  bad_request:
    'The request is not valid HTTP/1.1 (a malformed request line, header or chunk). Send a well-formed request; any HTTP client library does.',
  invalid_json:
    'The body did not parse as JSON. Send one JSON object with double-quoted keys and strings; escape `"` and newlines inside `details`.',
  invalid_body:
    'The body is empty or not a JSON object. Send one object, not an array or a string.',
  validation_failed: `A field is wrong; \`errors\` lists each one (\`field\`, \`message\`). \`outcome\` must be one of ${OUTCOMES.join(', ')}; \`details\` 1–${DETAILS_MAX_LENGTH.toLocaleString('en-US')} characters; \`tool_name\` and \`source\` at most ${LABEL_MAX_LENGTH}; \`metadata\` a flat object of at most ${METADATA_MAX_KEYS} string/number/boolean values and ${METADATA_MAX_BYTES} bytes. Fix every listed field and send once more.`,
  invalid_query: `A query parameter is wrong; \`errors\` lists each one. \`page\` and \`limit\` are positive integers (\`limit\` is capped at ${MAX_PAGE_LIMIT}), \`outcome\` one of ${OUTCOMES.join(', ')}, \`from\`/\`to\` ISO 8601 dates or date-times, each given once; \`cursor\` is a \`pagination.next_cursor\` passed back unchanged, with the filters it came with and without \`page\`. An unknown parameter is refused rather than ignored (a filter the endpoint does not have would otherwise return unfiltered data): \`detail\` names it and lists the parameters the endpoint accepts.`,
  missing_ingest_key: `Add \`"ingest_key": "${INGEST_KEY_PREFIX}…"\` to the JSON body (no header is needed). The key is in the SKILL.md you were given or in the dashboard.`,
  invalid_ingest_key: `The key is malformed, unknown or was rotated. Copy the current key (\`${INGEST_KEY_PREFIX}\` + 32 lowercase hex characters) again; do not retry with the same key.`,
  secret_key_not_allowed: `A secret API key (\`${API_KEY_PREFIX}…\`) was sent as \`ingest_key\`. Never embed secret keys in agents or skills: use the project's public ingest key, and tell the developer to revoke the exposed API key.`,
  invalid_forwarding_secret:
    'The `Debrief-Forwarding-Secret` header holds no active forwarding secret of the project this ingest key belongs to (mistyped, revoked, or of another project); nothing was stored. This header is for host apps that forward reports for many agents: copy the current secret from the dashboard (Keys → Forwarding secrets) into the host configuration, or leave both Debrief-Forwarding headers out.',
  missing_api_key: `Reading needs \`Authorization: Bearer ${API_KEY_PREFIX}…\`, an API key created in the dashboard (shown once).`,
  invalid_api_key:
    'The API key is truncated, mistyped, unknown or revoked. Copy it again or create a new one in the dashboard.',
  ingest_key_cannot_read: `An ingest key was sent as a Bearer token. Ingest keys only submit reports (in the body of POST /v1/reports); reading needs a secret API key (\`${API_KEY_PREFIX}…\`).`,
  not_authenticated: 'Sign in to the dashboard first (or use an API key for the read API).',
  invalid_credentials:
    'The email or the password is wrong. Check both; repeated failures are rate-limited.',
  csrf_failed:
    'Send the `x-csrf-token` header from GET /v1/auth/session with every dashboard request that changes something.',
  signups_closed:
    'Sign-ups on this instance need an invitation. Ask its operator for an invitation link (made in the dashboard or with `debrief invite`) and sign up through it.',
  invalid_invitation:
    'The invitation link is unknown, already used, revoked, expired, or made for another email address (`detail` says which). Ask the operator for a new link.',
  forbidden: 'Your credentials do not allow this action.',
  missing_scope:
    'The API key lacks the scope this request needs; `detail` names it. Triage (changing an issue, merging, moving a report) needs the `triage` scope: create a key with `"scopes": ["read", "triage"]` in the dashboard (or POST /v1/console/api-keys) and use it, or triage from the dashboard.',
  not_found: 'No such endpoint or resource. The endpoints are listed in /openapi.json.',
  project_not_found:
    'No project with this id in your account. GET /v1/projects lists your projects and their ids.',
  method_not_allowed: 'This endpoint does not take this HTTP method; see /openapi.json.',
  conflict: 'The resource already exists (e.g. an account with this email). Use the existing one.',
  payload_too_large: `The body is larger than ${BODY_MAX_BYTES / 1024} KiB. Shorten \`details\` and \`metadata\`.`,
  request_timeout:
    'The request (headers and body) did not arrive in time, so the connection was closed. Send the whole request at once and retry once.',
  headers_too_large:
    'The request line and headers together are too large (16 KiB at most). Send fewer or shorter headers and cookies.',
  too_many_tool_names:
    'The project already holds as many distinct `tool_name` values as this instance allows, and this one is new; nothing was stored. Send the name you used before for this tool (tool names are fixed names, not free text: put run-specific detail in `details`), or leave `tool_name` out.',
  too_many_sources:
    'The project already holds as many distinct `source` values as this instance allows, and this one is new; nothing was stored. Send a source the project already uses (the name of your agent or service, without ids or versions: those go in `metadata`), or leave `source` out.',
  quota_exceeded:
    "The project owner has used this month's report quota (the account's, or the project's own cap); nothing was stored. Do not retry before the time in `Retry-After` (the start of next month, UTC); carry on with your task.",
  rate_limited:
    'Too many reports too fast from this key or this address, or this address has stored its daily share of the month; nothing was stored and no quota was used. Wait the seconds in `Retry-After` (the `RateLimit` header says which limit), then send the report once more; never send reports in a loop.',
  too_many_streams:
    'Too many event streams are open: this account has reached its limit of concurrent streams, or the instance its total. Close a stream you no longer read (another dashboard tab, an idle client), then reconnect after the seconds in `Retry-After`, with `Last-Event-ID` so nothing is missed.',
  internal_error:
    'Something failed on the server and nothing was changed. Retry once after a moment; if it persists, carry on with your task.',
  service_unavailable:
    'The service cannot store reports right now (its database does not answer, the disk is full or read-only, or the server is restarting); nothing was stored. Retry once after the seconds in `Retry-After`; if it fails again, carry on with your task.',
  read_timeout:
    'A read (a list of reports, statistics, a replay of missed events) ran longer than this instance allows (`READ_TIMEOUT_MS`, 10 s by default) and was stopped so the server stays responsive; nothing was changed. Retry after the seconds in `Retry-After`; if it times out again, narrow the query: a shorter `from`/`to` range or another filter.',
};

export interface ErrorGuideEntry {
  code: ErrorCode;
  status: number;
  title: string;
  fix: string;
}

export function errorGuide(code: ErrorCode): ErrorGuideEntry {
  return {
    code,
    status: errorStatus(code),
    title: ERROR_TITLES[code],
    fix: FIXES[code] ?? ERROR_TITLES[code],
  };
}

export function allErrorGuides(): ErrorGuideEntry[] {
  return ERROR_CODES.map(errorGuide);
}

/** The codes POST /v1/reports can answer with: the ones an agent reporting feedback may meet. */
export const SUBMIT_ERROR_CODES = [
  'invalid_json',
  'invalid_body',
  'validation_failed',
  'too_many_tool_names',
  'too_many_sources',
  'missing_ingest_key',
  'invalid_ingest_key',
  'secret_key_not_allowed',
  'invalid_forwarding_secret',
  'payload_too_large',
  'quota_exceeded',
  'rate_limited',
  'internal_error',
  'service_unavailable',
] as const satisfies readonly ErrorCode[];

/**
 * The codes of the read endpoints' authentication: an API key, or a dashboard session cookie
 * (`not_authenticated` when the session has expired).
 */
export const READ_AUTH_ERROR_CODES = [
  'missing_api_key',
  'invalid_api_key',
  'ingest_key_cannot_read',
  'not_authenticated',
] as const satisfies readonly ErrorCode[];
