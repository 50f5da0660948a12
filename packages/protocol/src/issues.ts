import type { z } from 'zod';
import type { FieldError } from './errors.js';

/** Turns zod issues into problem-details `errors`, one per field, in the order received. */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)',
    message: issue.message,
  }));
}

/** One sentence for `detail`: every field problem, so an agent can fix them all in one retry. */
export function describeFieldErrors(errors: FieldError[]): string {
  return errors
    .map((e) => (e.field === '(body)' ? e.message : `${e.field} ${e.message}`))
    .join('; ');
}
