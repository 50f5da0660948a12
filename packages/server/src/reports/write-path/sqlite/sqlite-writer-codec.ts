import type { ReportSubmission, SubmissionOutcome } from '../report-writer.js';
import type { BatchResult } from './sqlite-thread-messages.js';

/**
 * What the main thread and the SQLite writer thread send each other, packed into one string.
 * postMessage clones a string with one copy, but walks an array of objects field by field: for
 * a turn's submissions that costs the event loop about 1 µs a report, four times what packing
 * does. Each field is written as its length, ':', then the text, so any
 * character may appear in it; '-' stands for null.
 */

class Packer {
  text = '';

  add(field: string | null): this {
    this.text += field === null ? '-' : `${field.length}:${field}`;
    return this;
  }
}

class Unpacker {
  private at = 0;

  constructor(private readonly text: string) {}

  get done(): boolean {
    return this.at >= this.text.length;
  }

  nullable(): string | null {
    if (this.text[this.at] === '-') {
      this.at += 1;
      return null;
    }
    const colon = this.text.indexOf(':', this.at);
    const length = Number(this.text.slice(this.at, colon));
    if (colon < 0 || !Number.isInteger(length)) throw new Error('A writer message is malformed.');
    this.at = colon + 1 + length;
    return this.text.slice(colon + 1, this.at);
  }

  string(): string {
    const field = this.nullable();
    if (field === null) throw new Error('A writer message is malformed.');
    return field;
  }
}

export interface Numbered<T> {
  seq: number;
  item: T;
}

export function packSubmissions(submissions: Numbered<ReportSubmission>[]): string {
  const packer = new Packer();
  for (const { seq, item } of submissions) {
    const { report } = item;
    packer
      .add(String(seq))
      .add(item.ingestKey)
      .add(item.month)
      .add(item.day)
      .add(item.address)
      .add(report.id)
      .add(report.outcome)
      .add(report.toolName)
      .add(report.source)
      .add(report.details)
      .add(report.metadata)
      .add(String(report.createdAt.getTime()))
      .add(String(report.redactions));
  }
  return packer.text;
}

export function unpackSubmissions(packed: string): Numbered<ReportSubmission>[] {
  const fields = new Unpacker(packed);
  const submissions: Numbered<ReportSubmission>[] = [];
  while (!fields.done) {
    submissions.push({
      seq: Number(fields.string()),
      item: {
        ingestKey: fields.string(),
        month: fields.string(),
        day: fields.string(),
        address: fields.string(),
        report: {
          id: fields.string(),
          outcome: fields.string(),
          toolName: fields.nullable(),
          source: fields.nullable(),
          details: fields.string(),
          metadata: fields.nullable(),
          createdAt: new Date(Number(fields.string())),
          redactions: Number(fields.string()),
        },
      },
    });
  }
  return submissions;
}

export function packResults(results: Numbered<BatchResult>[]): string {
  const packer = new Packer();
  for (const { seq, item } of results) {
    packer.add(String(seq));
    if ('error' in item) packer.add('error').add(item.error).add(item.code);
    else if (item.outcome.status === 'stored') packer.add('stored').add(item.outcome.projectId);
    else if (item.outcome.status === 'quota_exceeded') {
      packer.add('quota_exceeded').add(String(item.outcome.limit));
    } else if (item.outcome.status === 'unknown_key') packer.add('unknown_key').add(null);
    else {
      // One field more than the others: the project whose limit it is.
      packer.add(item.outcome.status).add(String(item.outcome.limit)).add(item.outcome.projectId);
    }
  }
  return packer.text;
}

export function unpackResults(packed: string): Numbered<BatchResult>[] {
  const fields = new Unpacker(packed);
  const results: Numbered<BatchResult>[] = [];
  while (!fields.done) {
    const seq = Number(fields.string());
    const kind = fields.string();
    const value = fields.nullable();
    let item: BatchResult;
    if (kind === 'error') item = { error: value ?? '', code: fields.nullable() };
    else if (kind === 'stored') item = { outcome: { status: 'stored', projectId: value ?? '' } };
    else if (kind === 'quota_exceeded') {
      item = { outcome: { status: 'quota_exceeded', limit: Number(value) } };
    } else if (kind === 'project_cap' || kind === 'address_daily') {
      item = { outcome: { status: kind, projectId: fields.string(), limit: Number(value) } };
    } else item = { outcome: { status: 'unknown_key' } satisfies SubmissionOutcome };
    results.push({ seq, item });
  }
  return results;
}
