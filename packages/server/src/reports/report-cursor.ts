import { createHash } from 'node:crypto';
import { describeFieldErrors, type FieldError } from '@debrief/protocol';
import { z } from 'zod';
import { ApiError } from '../errors/api-error.js';
import type { ReportKey } from './report.repository.js';

/**
 * The `cursor` of the report list: base64url of a small JSON object holding
 * the last report's key (created_at at full precision, id), how many reports came before the
 * next page (so the answer can still say which page it is), and a fingerprint of the project
 * and filters it was made for. Opaque to clients: only this module reads or writes one.
 *
 * Not signed: a hand-made cursor can only move the start of a seek inside the caller's own
 * project under its own filters, which `from`/`to` already allow. The fingerprint is there so a
 * cursor reused with other filters is refused instead of silently continuing a different walk.
 */
const CursorPayload = z.strictObject({
  /** created_at of the last report of the page, ISO 8601 with milliseconds. */
  t: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
  /** Its id. */
  i: z.string().regex(/^[0-9a-f]{32}$/),
  /** Reports before the next page: its offset, had it been asked for by number. */
  n: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  /** Fingerprint of the project and filters (fingerprint below). */
  f: z.string(),
});

/** What a cursor is bound to: the project and every filter of the list, by value. */
export interface CursorScope {
  projectId: string;
  outcome?: string;
  toolName?: string;
  source?: string;
  from?: Date;
  before?: Date;
}

function fingerprint(scope: CursorScope): string {
  const parts = [
    scope.projectId,
    scope.outcome ?? null,
    scope.toolName ?? null,
    scope.source ?? null,
    scope.from?.toISOString() ?? null,
    scope.before?.toISOString() ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

export function encodeCursor(scope: CursorScope, last: ReportKey, position: number): string {
  const payload: z.infer<typeof CursorPayload> = {
    t: last.createdAt,
    i: last.id,
    n: position,
    f: fingerprint(scope),
  };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

function invalidCursor(message: string): ApiError {
  const errors: FieldError[] = [{ field: 'cursor', message }];
  return new ApiError('invalid_query', `${describeFieldErrors(errors)}.`, { errors });
}

/** The key to seek after and the position of the page, or a 400 that names `cursor`. */
export function decodeCursor(
  text: string,
  scope: CursorScope,
): { after: ReportKey; position: number } {
  let payload: z.infer<typeof CursorPayload>;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('not base64url');
    payload = CursorPayload.parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
  } catch {
    throw invalidCursor(
      'is not a cursor of this endpoint: pass pagination.next_cursor of the previous page exactly as it came, or leave cursor out (and use page) to start again',
    );
  }
  if (payload.f !== fingerprint(scope)) {
    throw invalidCursor(
      'was made for another project or other filters: a cursor continues the walk it came from, so send the same outcome, tool_name, source, from and to as the request that returned it (limit may change), or leave cursor out to start a new walk',
    );
  }
  return { after: { createdAt: payload.t, id: payload.i }, position: payload.n };
}
