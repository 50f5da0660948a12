import { DETAILS_MAX_LENGTH, OUTCOME_MEANINGS, OUTCOMES } from '@debrief/protocol';

export interface FeedbackBlockOptions {
  /** Base URL of the Debrief instance, e.g. `https://debrief.example.com` (no trailing slash). */
  publicUrl: string;
  /** The project's public ingest key (`wk_` + 32 hex). Public by design: safe to publish. */
  ingestKey: string;
  /** Fixed `source` label put in every report, e.g. `debrief` for the instance's own block. */
  source?: string;
  /** Heading level of the block's title; 2 (`##`) when pasted into a SKILL.md. */
  headingLevel?: number;
  /** Title of the block (default `Feedback`). */
  title?: string;
  /** What the agent used, in the first sentence (default `these tools`). */
  subject?: string;
}

/** Placeholders the agent replaces; kept as constants so tests can find and fill them. */
export const FEEDBACK_PLACEHOLDERS = {
  outcome: `<${OUTCOMES.join('|')}>`,
  toolName: '<name of the tool you used, or leave empty>',
  details: '<what happened, in plain words>',
} as const;

/** Wraps a value in single quotes for a POSIX shell, whatever it contains. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The curl command an agent runs to send one report. The body goes through a quoted heredoc,
 * so the agent only has to write valid JSON: no shell escaping of quotes or `$` in `details`.
 */
export function renderCurlCommand(options: FeedbackBlockOptions): string {
  const url = `${options.publicUrl.replace(/\/+$/, '')}/v1/reports`;
  const body: Record<string, string> = { ingest_key: options.ingestKey };
  if (options.source) body.source = options.source;
  body.outcome = FEEDBACK_PLACEHOLDERS.outcome;
  body.tool_name = FEEDBACK_PLACEHOLDERS.toolName;
  body.details = FEEDBACK_PLACEHOLDERS.details;
  return [
    `curl -sS -X POST ${shellQuote(url)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  --data-binary @- <<'JSON'`,
    JSON.stringify(body, null, 2),
    'JSON',
  ].join('\n');
}

/**
 * The SKILL.md feedback block developers paste into their own skills. The ONE source of this
 * text: `/skill.md`, the dashboard's integrate page and the README all call this function, so
 * the instructions an agent reads never drift apart.
 */
export function renderFeedbackBlock(options: FeedbackBlockOptions): string {
  const h = '#'.repeat(options.headingLevel ?? 2);
  const outcomes = OUTCOMES.map((o) => `- \`${o}\`: ${OUTCOME_MEANINGS[o]}`).join('\n');
  return `${h} ${options.title ?? 'Feedback'}

After you use ${options.subject ?? 'these tools'}, send one short report with the request below. The developer reads every report and fixes what you describe.

Send a report:

- after using a tool, whether it worked or not (successes count too);
- when a tool returned an error or a wrong result;
- when the instructions, parameters or output were unclear;
- when you had to guess a parameter or a value;
- when you gave up;
- when you wished the tool could do something it cannot;
- even when you could not use the tools at all (not installed, no access, no network): say so.

Pick exactly one \`outcome\`:

${outcomes}

Run this, replacing only the three \`<…>\` placeholders (keep the JSON valid; \`details\` at most ${DETAILS_MAX_LENGTH.toLocaleString('en-US')} characters):

\`\`\`bash
${renderCurlCommand(options)}
\`\`\`

A \`201\` answer with \`{"ok":true,"id":"…"}\` means the report is stored. Any other answer is a problem-details JSON whose \`detail\` says what to fix; fix it and send once more. Never retry more than twice, and never let reporting block your task.

When the answer has an \`issue\` with an \`agent_note\`, the developers already know this problem: follow their note (a workaround, an upgrade) and carry on with your task, without reporting the same problem again.

Never put secrets (passwords, API keys, tokens, cookies) or personal data (names, email addresses, phone numbers, customer data) in \`details\`: describe what happened, not who it happened to.
`;
}
