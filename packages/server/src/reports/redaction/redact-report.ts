import {
  type ReportMetadata,
  redactText,
  SECRET_PATTERNS,
  SECRET_PREFILTER,
  type ValidReportInput,
} from '@debrief/protocol';
import { PERSONAL_DATA_PATTERNS, PERSONAL_DATA_PREFILTER } from './personal-data-patterns.js';

export interface RedactionOptions {
  /** Also redact email addresses and phone numbers (the project's `redact_personal_data`). */
  personalData: boolean;
}

/**
 * A metadata key that names a credential: its string value is redacted whole, whatever it
 * looks like (`{"password": "hunter2"}` has no pattern to find). Matches `token`,
 * `access_token`, `api-key`, `DB_PASSWORD`…; not `max_tokens` or `session_id`.
 */
const CREDENTIAL_KEY =
  /^(?:.*[_.-])?(?:password|passwd|pwd|secret|token|api_?key|apikey|auth|authorization|cookie|credentials?|private_?key)$/i;

const BOTH = [...SECRET_PATTERNS, ...PERSONAL_DATA_PATTERNS];

/**
 * The one entry point of redaction (docs/operating.md, Secrets and redaction): the report with
 * every credential in `details`, `tool_name`, `source` and metadata string values replaced by
 * `[REDACTED:<kind>]`, and how many were replaced. Runs before anything is written or
 * published. A text that matches no prefilter — nearly every report — costs one regex test
 * and comes back as the same string; the input object itself is returned when nothing changed.
 */
export function redactReport(
  input: ValidReportInput,
  options: RedactionOptions,
): { input: ValidReportInput; redactions: number } {
  let redactions = 0;
  const scan = (text: string): string => {
    const secrets = SECRET_PREFILTER.test(text);
    const personal = options.personalData && PERSONAL_DATA_PREFILTER.test(text);
    if (!secrets && !personal) return text;
    const patterns = personal ? (secrets ? BOTH : PERSONAL_DATA_PATTERNS) : SECRET_PATTERNS;
    const result = redactText(text, patterns);
    redactions += result.redactions;
    return result.text;
  };
  const scanLabel = (label: string | null) => (label === null ? null : scan(label));

  const details = scan(input.details);
  const toolName = scanLabel(input.tool_name);
  const source = scanLabel(input.source);
  let metadata = input.metadata;
  if (metadata !== null) {
    let copy: ReportMetadata | null = null;
    for (const key in metadata) {
      const value = metadata[key];
      if (typeof value !== 'string') continue;
      let redacted: string;
      if (CREDENTIAL_KEY.test(key) && value !== '' && !value.startsWith('[REDACTED:')) {
        redactions += 1;
        redacted = '[REDACTED:credential]';
      } else redacted = scan(value);
      if (redacted !== value) {
        copy ??= { ...metadata };
        copy[key] = redacted;
      }
    }
    if (copy) metadata = copy;
  }
  if (redactions === 0) return { input, redactions };
  return {
    input: { ...input, details, tool_name: toolName, source, metadata },
    redactions,
  };
}
