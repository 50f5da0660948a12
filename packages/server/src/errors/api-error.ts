import { type ErrorCode, errorStatus, type FieldError } from '@debrief/protocol';

/**
 * The one error class of the service. Services throw it; the error handler turns it into
 * problem details. `detail` is written for an agent: what was wrong and how to fix it.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly options: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.status = errorStatus(code);
  }
}
