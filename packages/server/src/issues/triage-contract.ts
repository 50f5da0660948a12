import type { ErrorCode } from '@debrief/protocol';
import { READ_AUTH_ERROR_CODES } from '../agent-resources/error-guide.js';

/** What every triage write can answer besides its success. */
export const TRIAGE_ERRORS: readonly ErrorCode[] = [
  'invalid_json',
  'invalid_body',
  'validation_failed',
  ...READ_AUTH_ERROR_CODES,
  'csrf_failed',
  'missing_scope',
  'project_not_found',
  'not_found',
  'internal_error',
  'service_unavailable',
];
