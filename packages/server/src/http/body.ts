import { describeFieldErrors, fieldErrors } from '@debrief/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors/api-error.js';

/** Validates a JSON object body against a schema: 400 problem details naming every field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(
      'invalid_body',
      `The request body must be one JSON object (received ${body === undefined ? 'nothing' : Array.isArray(body) ? 'an array' : typeof body}).`,
    );
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error);
    throw new ApiError('validation_failed', `${describeFieldErrors(errors)}.`, { errors });
  }
  return parsed.data;
}
