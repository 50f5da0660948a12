import type { ReportToGroup } from '../arrival-grouper.js';

/**
 * Past this many reports the mirror lets go of what it holds (a move failing while reports keep
 * coming): the inbox stays in the file, and the grouped move reads it from there.
 */
const MIRROR_MAX = 20_000;

/**
 * What the writer thread stored in its inbox, as the grouped move reads it, oldest first: the
 * move then reads only the chunk's rowids and ids back from the file (~0.4 µs a report) instead
 * of whole rows (~2–3 µs of the ~22 µs a grouped move costs a report, in the move's scratch
 * measurement). Never trusted blindly: `take` hands out reports only when their ids are, in
 * order, the ones the file gave for the chunk, so a mirror that is behind (the reports a stopped
 * server left in the inbox), cleared or wrong costs a full read, never a wrong report.
 */
export class InboxMirror {
  private reports: ReportToGroup[] = [];
  private head = 0;

  /** Reports just committed to the inbox, in the order they were inserted. */
  append(reports: readonly ReportToGroup[]): void {
    if (this.reports.length - this.head + reports.length > MIRROR_MAX) this.clear();
    for (const report of reports) this.reports.push(report);
  }

  /** The mirrored reports of the chunk whose ids (in rowid order) are `ids`, or null. */
  take(ids: readonly string[]): ReportToGroup[] | null {
    if (this.reports.length - this.head < ids.length) return null;
    for (let i = 0; i < ids.length; i++) {
      if (this.reports[this.head + i]?.id !== ids[i]) return null;
    }
    return this.reports.slice(this.head, this.head + ids.length);
  }

  /** The chunk with these ids left the inbox: its reports leave the mirror's front. */
  moved(ids: readonly string[]): void {
    const last = this.head + ids.length - 1;
    if (this.reports[this.head]?.id === ids[0] && this.reports[last]?.id === ids.at(-1)) {
      // The chunk take() handed out (the usual case): no set of its ids to build.
      this.head = last + 1;
    } else {
      const gone = new Set(ids);
      while (this.head < this.reports.length && gone.has(this.reports[this.head]!.id)) this.head++;
    }
    if (this.head === this.reports.length) this.clear();
    else if (this.head > 4096) {
      this.reports = this.reports.slice(this.head);
      this.head = 0;
    }
  }

  /** The whole inbox left (or is no longer mirrored). */
  clear(): void {
    this.reports = [];
    this.head = 0;
  }
}
