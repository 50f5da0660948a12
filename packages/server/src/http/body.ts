import { describeFieldErrors, fieldErrors } from '@debrief/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors/api-error.js';

function describeReceived(body: unknown): string {
  if (Array.isArray(body)) return 'an array';
  return body === null ? 'null' : `a ${typeof body}`;
}

/**
 * The body as a JSON object, or 400 `invalid_body` saying what arrived instead (and, when the
 * caller gives one, an example of what to send).
 */
export function requireJsonObject(body: unknown, example?: string): Record<string, unknown> {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    return body as Record<string, unknown>;
  }
  if (body === undefined) {
    throw new ApiError(
      'invalid_body',
      example
        ? `The request body is empty. Send a JSON object: ${example}.`
        : 'The request body must be one JSON object (received nothing).',
    );
  }
  throw new ApiError(
    'invalid_body',
    `The request body must be one JSON object, not ${describeReceived(body)}.${example ? ` Send ${example}.` : ''}`,
  );
}

/** Validates fields against a schema: 400 `validation_failed` naming every invalid field. */
export function validateFields<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const errors = fieldErrors(parsed.error);
    throw new ApiError('validation_failed', `${describeFieldErrors(errors)}.`, { errors });
  }
  return parsed.data;
}

/** A JSON object body validated against a schema. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  return validateFields(schema, requireJsonObject(body));
}
