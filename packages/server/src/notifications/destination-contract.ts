import type { ErrorCode } from '@debrief/protocol';
import { z } from 'zod';
import { READ_AUTH_ERROR_CODES } from '../agent-resources/error-guide.js';

/** Path of one destination: `/v1/dashboard/:projectId/destinations/:destinationId`. */
export const ProjectDestinationParams = z.object({
  projectId: z.string(),
  destinationId: z.string(),
});

export const DESTINATION_ID_DESCRIPTION =
  'Id of a destination of the project (32 lowercase hex characters), from GET …/destinations.';

/** What every destination operation can answer besides its success. */
export const DESTINATION_ERRORS: readonly ErrorCode[] = [
  ...READ_AUTH_ERROR_CODES,
  'csrf_failed',
  'missing_scope',
  'project_not_found',
  'internal_error',
  'service_unavailable',
];

export const DESTINATION_WRITE_ERRORS: readonly ErrorCode[] = [
  'invalid_json',
  'invalid_body',
  'validation_failed',
  ...DESTINATION_ERRORS,
];
