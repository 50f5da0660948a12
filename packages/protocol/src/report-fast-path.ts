import { OUTCOMES } from './outcomes.js';
import {
  DETAILS_MAX_LENGTH,
  hasNoNul,
  LABEL_MAX_LENGTH,
  METADATA_MAX_BYTES,
  METADATA_MAX_KEYS,
  RESERVED_METADATA_KEYS,
  type ValidReportInput,
} from './report.schema.js';
import { isWellFormedText, utf8Length } from './utf8.js';

const outcomes: ReadonlySet<unknown> = new Set(OUTCOMES);
const reservedKeys: ReadonlySet<string> = new Set(RESERVED_METADATA_KEYS);

/** The schema's `validText`: no NUL, no lone surrogate. */
const plainText = (text: string) => hasNoNul(text) && isWellFormedText(text);

function label(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (trimmed.length > LABEL_MAX_LENGTH || !plainText(trimmed)) return undefined;
  return trimmed === '' ? null : trimmed;
}

function metadata(value: unknown): ValidReportInput['metadata'] | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return;
  const copy: Record<string, string | number | boolean> = {};
  let keys = 0;
  for (const key in value) {
    if (reservedKeys.has(key) || ++keys > METADATA_MAX_KEYS || !plainText(key)) return;
    const field = (value as Record<string, unknown>)[key];
    const type = typeof field;
    if (type === 'string') {
      if (!plainText(field as string)) return;
    } else if (type !== 'boolean' && !(type === 'number' && Number.isFinite(field))) {
      return;
    }
    copy[key] = field as string | number | boolean;
  }
  const json = JSON.stringify(copy);
  // A character is at most 3 bytes in UTF-8, so a short text needs no counting.
  if (json.length * 3 > METADATA_MAX_BYTES && utf8Length(json) > METADATA_MAX_BYTES) return;
  return copy;
}

/**
 * `ReportInput.parse` for the plainly valid report, about ten times cheaper than zod on the
 * ingest path, where zod's validation would be the largest cost after the socket.
 * Anything else — an invalid field, an unusual value, a reserved key — gives undefined,
 * and the caller runs the schema, which stays the one definition of what is valid and of every
 * error message. A property test over random bodies, valid and invalid, holds the pair to the
 * schema alone (test/report-fast-path.property.test.ts): the same acceptance, the same parsed
 * value, the same errors and fields.
 */
export function parsePlainReportInput(body: Record<string, unknown>): ValidReportInput | undefined {
  const { outcome, details, tool_name, source } = body;
  if (!outcomes.has(outcome) || typeof details !== 'string') return;
  const text = details.trim();
  if (text.length === 0 || text.length > DETAILS_MAX_LENGTH || !plainText(text)) return;
  const toolName = label(tool_name);
  const sourceLabel = label(source);
  const meta = metadata(body.metadata);
  if (toolName === undefined || sourceLabel === undefined || meta === undefined) return;
  return {
    outcome: outcome as ValidReportInput['outcome'],
    details: text,
    tool_name: toolName,
    source: sourceLabel,
    metadata: meta,
  };
}
