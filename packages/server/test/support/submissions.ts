import { newId } from '../../src/ids.js';
import { usageMonth } from '../../src/limits/storage-limits.js';
import type { ReportSubmission } from '../../src/reports/write-path/index.js';

/**
 * A submission as the submit route hands it to the report writer, with a fresh id; stored now
 * unless `at` says when (its usage month and day follow it).
 */
export const submission = (
  ingestKey: string,
  fields: {
    outcome?: string;
    toolName?: string | null;
    source?: string | null;
    details?: string;
    id?: string;
    at?: Date;
    address?: string;
  } = {},
): ReportSubmission => {
  const createdAt = fields.at ?? new Date();
  return {
    ingestKey,
    month: usageMonth(createdAt),
    day: createdAt.toISOString().slice(0, 10),
    address: fields.address ?? '127.0.0.1',
    report: {
      id: fields.id ?? newId(createdAt.getTime()),
      outcome: fields.outcome ?? 'success',
      toolName: fields.toolName ?? null,
      source: fields.source ?? null,
      details: fields.details ?? 'stored by the writer test',
      metadata: null,
      createdAt,
      redactions: 0,
    },
  };
};
