import { describeFieldErrors, type FieldError, fieldErrors } from '@debrief/protocol';
import type { z } from 'zod';
import { ApiError } from '../errors/api-error.js';

/**
 * Validates a query string against a schema. A parameter given twice is refused by name rather
 * than silently reduced to one value.
 */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const raw = (query ?? {}) as Record<string, unknown>;
  const repeated: FieldError[] = Object.entries(raw)
    .filter(([, value]) => Array.isArray(value))
    .map(([field]) => ({ field, message: 'must be given once' }));
  const parsed = schema.safeParse(raw);
  const errors = [...repeated, ...(parsed.success ? [] : fieldErrors(parsed.error))];
  if (errors.length > 0 || !parsed.success) {
    throw new ApiError('invalid_query', `${describeFieldErrors(errors)}.`, { errors });
  }
  return parsed.data;
}
