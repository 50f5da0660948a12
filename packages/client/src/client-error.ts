import type { ProblemDetails } from '@debrief/protocol';

/**
 * Codes for failures where Debrief never answered. They live here, not in the protocol's
 * ERROR_CODES, because no server ever sends them: the client makes them up locally.
 */
export const CLIENT_ERROR_CODES = ['network_error', 'timeout', 'invalid_response'] as const;
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];

/**
 * Problem-details-like object for a failure without a usable HTTP response. `status` is 0
 * ("no response", as fetch reports an opaque response) except for `invalid_response`, which
 * carries the status that came with the unreadable body.
 */
export interface ClientProblem {
  ok: false;
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ClientErrorCode;
}

/** What a failed call carries: the server's problem details, or a client-side problem. */
export type DebriefProblem = ProblemDetails | ClientProblem;

const TITLES: Record<ClientErrorCode, string> = {
  network_error: 'Debrief could not be reached',
  timeout: 'Debrief did not answer in time',
  invalid_response: 'Debrief answered with something unexpected',
};

export function clientProblem(code: ClientErrorCode, detail: string, status = 0): ClientProblem {
  return {
    ok: false,
    type: `about:blank#debrief-client-${code}`,
    title: TITLES[code],
    status,
    detail,
    code,
  };
}

export function isClientProblem(problem: DebriefProblem): problem is ClientProblem {
  return (CLIENT_ERROR_CODES as readonly string[]).includes(problem.code);
}

/**
 * Thrown by the read client, and by the reporter when `throwOnError` is set. The problem is
 * kept whole, so callers can branch on `error.problem.code` exactly as on a result.
 */
export class DebriefError extends Error {
  override name = 'DebriefError';
  readonly code: DebriefProblem['code'];
  readonly status: number;

  constructor(
    readonly problem: DebriefProblem,
    readonly retryAfterSeconds?: number,
  ) {
    super(`${problem.title}: ${problem.detail}`);
    this.code = problem.code;
    this.status = problem.status;
  }
}
