import { describeFieldErrors, type FieldError, fieldErrors } from '@debrief/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors/api-error.js';

/**
 * Validates a query string against an object schema whose keys are the endpoint's parameters.
 * A parameter the endpoint does not know is refused by name, not ignored: a client that expects
 * a filter the server does not have (`?q=`, `?order=`) must not silently get unfiltered
 * data. A parameter given twice is refused too, rather than silently reduced to one value.
 */
export function parseQuery<S extends z.ZodObject>(schema: S, query: unknown): z.output<S> {
  const raw = (query ?? {}) as Record<string, unknown>;
  const accepted = Object.keys(schema.shape);
  const unknown = Object.keys(raw).filter((name) => !accepted.includes(name));
  const acceptedText =
    accepted.length > 0
      ? `this endpoint accepts only ${accepted.join(', ')}`
      : 'this endpoint takes no query parameters';
  const unknownErrors: FieldError[] = unknown.map((field) => ({
    field,
    message: `is not a query parameter of this endpoint (${acceptedText})`,
  }));
  const repeated: FieldError[] = Object.entries(raw)
    .filter(([name, value]) => Array.isArray(value) && accepted.includes(name))
    .map(([field]) => ({ field, message: 'must be given once' }));
  const parsed = schema.safeParse(raw);
  const invalid = [...repeated, ...(parsed.success ? [] : fieldErrors(parsed.error))];
  const errors = [...unknownErrors, ...invalid];
  if (errors.length > 0 || !parsed.success) {
    const sentences = [
      unknown.length > 0
        ? `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: ${acceptedText}`
        : null,
      invalid.length > 0 ? describeFieldErrors(invalid) : null,
    ].filter((sentence) => sentence !== null);
    throw new ApiError('invalid_query', `${sentences.join('. ')}.`, { errors });
  }
  return parsed.data;
}
