import { newId } from '../src/ids.js';
import { usageMonth } from '../src/reports/report.service.js';
import type { ReportSubmission } from '../src/reports/write-path/index.js';

/** A submission as the submit route hands it to the report writer, with a fresh id. */
export const submission = (
  ingestKey: string,
  fields: { outcome?: string; toolName?: string | null; id?: string } = {},
): ReportSubmission => {
  const now = new Date();
  return {
    ingestKey,
    month: usageMonth(now),
    day: now.toISOString().slice(0, 10),
    address: '127.0.0.1',
    report: {
      id: fields.id ?? newId(now.getTime()),
      outcome: fields.outcome ?? 'success',
      toolName: fields.toolName ?? null,
      source: null,
      details: 'stored by the writer test',
      metadata: null,
      createdAt: now,
      redactions: 0,
    },
  };
};
