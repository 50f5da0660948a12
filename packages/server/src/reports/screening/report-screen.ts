import type { ValidReportInput } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { DB } from '../../db/schema.js';
import { ApiError } from '../../errors/api-error.js';
import type { IngestKeyCache } from '../../keys/ingest-key-cache.js';
import { redactReport } from '../redaction/redact-report.js';
import { LabelCaps } from './label-caps.js';

/**
 * What happens to a valid report before the writer stores it:
 * credentials are redacted (reports/redaction/, with email addresses and phone numbers too
 * where the project asks), then the project's caps on distinct tool names and sources are
 * applied to the labels as they will be stored. One call from the submit service: `screen`.
 */
export interface ReportScreen {
  /**
   * The report to store and how many values were redacted; throws the 400 of a label past its
   * cap. An unknown key passes unchanged (secrets still redacted): the writer answers the 401.
   */
  screen(ingestKey: string, input: ValidReportInput): Promise<ScreenedReport>;
  /** The project's setting changed: read it again on the next report (this process at once). */
  forgetProject(projectId: string): void;
}

export interface ScreenedReport {
  input: ValidReportInput;
  redactions: number;
}

/**
 * `keys`: the key → project cache the ingest gate shares (keys/ingest-key-cache.ts); other
 * instances see a changed redaction setting within its 10 s.
 */
export function createReportScreen(
  db: Kysely<DB>,
  config: Config,
  keys: IngestKeyCache,
): ReportScreen {
  const caps = new LabelCaps(db, {
    tool_name: config.maxToolNamesPerProject,
    source: config.maxSourcesPerProject,
  });

  return {
    async screen(ingestKey, input) {
      const project = await keys.get(ingestKey);
      const screened = redactReport(input, {
        personalData: project?.redact_personal_data === 1,
      });
      if (project) {
        const { tool_name, source } = screened.input;
        if (!(await caps.admit(project.project_id, 'tool_name', tool_name))) {
          throw labelCapError('tool_name', tool_name!, config.maxToolNamesPerProject);
        }
        if (!(await caps.admit(project.project_id, 'source', source))) {
          throw labelCapError('source', source!, config.maxSourcesPerProject);
        }
      }
      return screened;
    },
    forgetProject(projectId) {
      keys.forgetProject(projectId);
    },
  };
}

function labelCapError(field: 'tool_name' | 'source', value: string, cap: number): ApiError {
  const shown = JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  const what = field === 'tool_name' ? 'tool names' : 'sources';
  const advice =
    field === 'tool_name'
      ? 'Send the tool_name this project already uses for this tool (a fixed name such as "search_logs"; put run-specific text in details), or leave tool_name out.'
      : 'Send a source this project already uses (the name of your agent or service, without ids or versions: those belong in metadata), or leave source out.';
  return new ApiError(
    field === 'tool_name' ? 'too_many_tool_names' : 'too_many_sources',
    `This project already has ${cap} distinct ${what}, the most it may hold, and ${field} ${shown} is not one of them, so this report was not stored. ${advice}`,
    { errors: [{ field, message: `is a new value past the project's cap of ${cap} ${what}` }] },
  );
}
