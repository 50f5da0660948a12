import {
  BODY_MAX_BYTES,
  DEFAULT_PAGE_LIMIT,
  DETAILS_MAX_LENGTH,
  INGEST_KEY_PREFIX,
  LABEL_MAX_LENGTH,
  MAX_PAGE_LIMIT,
  METADATA_MAX_BYTES,
  METADATA_MAX_KEYS,
  OUTCOME_MEANINGS,
  OUTCOMES,
  type Outcome,
} from '@debrief/protocol';
import { errorGuide, SUBMIT_ERROR_CODES } from './error-guide.js';
import { renderFeedbackBlock } from './feedback-block.js';
import { SELF_SOURCE } from './self-project.service.js';

/** One-line example per outcome, shown in /skill.md. */
export const OUTCOME_EXAMPLES: Record<Outcome, string> = {
  success: 'search_files found the config file on the first call.',
  failure: "create_invoice returned 500 'internal error' for a valid customer id.",
  confusing: 'The docs say `date` but not its format; I guessed YYYY-MM-DD and it worked.',
  gave_up: 'The tool needs an OAuth token I do not have; I stopped after 3 attempts.',
  request: 'I wished list_orders could filter by status, so I did not have to page through all.',
};

/** The tool each example is about, so that examples read true in the OpenAPI document too. */
export const OUTCOME_EXAMPLE_TOOLS: Record<Outcome, string> = {
  success: 'search_files',
  failure: 'create_invoice',
  confusing: 'book_meeting',
  gave_up: 'fetch_calendar',
  request: 'list_orders',
};

const n = (value: number) => value.toLocaleString('en-US');

/** Placeholder a developer's agent never sends as is: the project's own key goes there. */
const KEY_PLACEHOLDER = `${INGEST_KEY_PREFIX}YOUR_PROJECT_INGEST_KEY`;

function requestSection(base: string): string {
  return `## The request

\`POST ${base}/v1/reports\` with a JSON body. The ingest key goes in the body; no header is needed (\`Content-Type: application/json\` is welcome but optional).

With curl:

\`\`\`bash
curl -sS -X POST '${base}/v1/reports' \\
  -H 'Content-Type: application/json' \\
  --data-binary @- <<'JSON'
{"ingest_key": "wk_…", "outcome": "confusing", "tool_name": "search_files", "details": "The glob parameter is undocumented; I guessed **/*.ts and it worked."}
JSON
\`\`\`

With fetch (JavaScript):

\`\`\`js
const response = await fetch('${base}/v1/reports', {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({
    ingest_key: 'wk_…',
    outcome: 'failure',
    tool_name: 'create_invoice',
    details: 'Returned 500 for customer 42 although the customer exists.',
  }),
});
// 201 {"ok":true,"id":"…"} when stored; otherwise a problem-details JSON (see Errors).
\`\`\`

Success: \`201 Created\` with \`{"ok": true, "id": "<32 hex characters>"}\`. The report is stored once you have the 201.

### When the answer carries \`issue\`

Sometimes the developer already knows the problem you reported. Then the 201 adds what they know:

\`\`\`json
{"ok": true, "id": "…", "issue": {"id": "…", "status": "resolved", "agent_note": "Use page= instead of cursor= until 2.3."}}
\`\`\`

- \`agent_note\` (when present) is the developer's message to you: a workaround, "fixed in 2.3, upgrade", "not planned". Read it and act on it: apply the workaround and carry on with your task, tell your user if it concerns them (an upgrade), and do not report the same problem again in this session.
- \`status\`: \`open\` (known, being worked on), \`resolved\` (the developer believes it is fixed: if you still hit it, your version may be older, or it came back; your report has reopened it, so there is no need to send another), \`ignored\` (known and not planned: do not retry the same call hoping for a change).
- No \`issue\` field means nothing is known yet, or the server did not find it in time: your report was stored all the same. Never wait or resend to get one.
- \`issue.id\` only names the problem your own report joined; quote it if you tell your user.

### Fields

| Field | Required | Limits |
| --- | --- | --- |
| \`ingest_key\` | yes | \`${INGEST_KEY_PREFIX}\` + 32 lowercase hex characters; public, given to you with the tool |
| \`outcome\` | yes | exactly one of ${OUTCOMES.map((o) => `\`${o}\``).join(', ')} |
| \`details\` | yes | what happened, in plain words; 1–${n(DETAILS_MAX_LENGTH)} characters after trimming |
| \`tool_name\` | no | the tool you used, at most ${LABEL_MAX_LENGTH} characters |
| \`source\` | no | who is reporting (your agent or client name), at most ${LABEL_MAX_LENGTH} characters |
| \`metadata\` | no | flat object of string, number or boolean values (e.g. \`{"client": "my-agent", "model": "x-1"}\`); at most ${METADATA_MAX_KEYS} keys and ${n(METADATA_MAX_BYTES)} bytes as JSON |

The whole body may be at most ${n(BODY_MAX_BYTES / 1024)} KiB. Unknown fields are ignored.
`;
}

function errorsSection(base: string): string {
  const rows = SUBMIT_ERROR_CODES.map(errorGuide)
    .map((e) => `| ${e.status} | \`${e.code}\` | ${e.fix} |`)
    .join('\n');
  return `## Errors and how to fix them

Every error is a JSON object (\`Content-Type: application/problem+json\`) like
\`{"ok": false, "status": 400, "code": "validation_failed", "title": "…", "detail": "…", "errors": [{"field": "outcome", "message": "…"}], "type": "${base}/docs#error-validation_failed"}\`.
Read \`detail\`: it says what was wrong and how to fix it. Branch on \`code\`:

| Status | code | What to do |
| --- | --- | --- |
${rows}

Fix the request and send it once more; never retry the same failing request in a loop, and never let reporting block your real task.
`;
}

function developerSection(base: string): string {
  // The same block the dashboard's Integrate page shows, in a four-backtick fence because it
  // contains a three-backtick one.
  const block = renderFeedbackBlock({ publicUrl: base, ingestKey: KEY_PLACEHOLDER })
    .trimEnd()
    .split('\n')
    .map((line) => (line ? `   ${line}` : line))
    .join('\n');
  return `## For developers: three ways to collect reports

Sign in to the dashboard at ${base}/, create a project and copy its ingest key (public by design: it can only submit reports). Then pick the route that matches how agents reach your tool:

1. **A SKILL.md.** Paste this block at the end of your skill, with your key in place of \`YOUR_PROJECT_INGEST_KEY\` (the dashboard's Integrate page shows it with your key filled in):

   \`\`\`\`markdown
${block}
   \`\`\`\`

2. **An MCP server** (\`@debrief/mcp\`): adds a \`report_feedback\` tool to your server.

   \`\`\`ts
   import { attach } from '@debrief/mcp';
   attach(server, { ingestKey: process.env.DEBRIEF_INGEST_KEY, baseUrl: '${base}' });
   \`\`\`

3. **A REST API on Express** (\`@debrief/express\`): mounts \`POST /feedback\` that agents call on your own API.

   \`\`\`ts
   import { feedbackRouter } from '@debrief/express';
   app.use(feedbackRouter({ ingestKey: process.env.DEBRIEF_INGEST_KEY, baseUrl: '${base}' }));
   \`\`\`

Read the reports in the dashboard (live), or with the read API and a secret API key (\`Authorization: Bearer wk_sk_…\`, never put it in a skill): \`GET ${base}/v1/projects\`, \`GET ${base}/v1/dashboard/{projectId}/reports\` (newest first, ${DEFAULT_PAGE_LIMIT} reports a page unless you pass \`limit\`, at most ${MAX_PAGE_LIMIT}). The full reference is at ${base}/docs and ${base}/openapi.json.
`;
}

/**
 * The instance's own key in the first screen: an agent that came to report about Debrief
 * itself should not have to read to the end to find where.
 */
function selfFeedbackNote(selfIngestKey: string | null): string {
  if (!selfIngestKey) {
    return '**About Debrief itself:** reports about this Debrief instance are not set up yet (they start once the operator has created the first account); do not send any until then.';
  }
  return `**About Debrief itself:** to report about this Debrief instance itself (this document, its API or its dashboard), use ingest key \`${selfIngestKey}\` with \`"source": "${SELF_SOURCE}"\`. The ready-to-run request is in the last section, "Feedback about Debrief itself".`;
}

function selfFeedbackSection(base: string, selfIngestKey: string | null): string {
  if (!selfIngestKey) {
    return `## Feedback about Debrief itself

Feedback about Debrief itself is not set up yet on this instance: it starts once the operator has created the first account. Until then, do not send reports about Debrief; carry on with your task.
`;
  }
  return renderFeedbackBlock({
    publicUrl: base,
    ingestKey: selfIngestKey,
    source: SELF_SOURCE,
    title: 'Feedback about Debrief itself',
    subject: 'this document or the Debrief API (for example to send a report above)',
  });
}

/**
 * The agent instructions served at /skill.md. `selfIngestKey` is the current key of the
 * instance's own project (null until the first account exists).
 */
export function renderSkillDocument(publicUrl: string, selfIngestKey: string | null): string {
  const base = publicUrl.replace(/\/+$/, '');
  const outcomes = OUTCOMES.map(
    (o) => `- \`${o}\`: ${OUTCOME_MEANINGS[o]}. Example: "${OUTCOME_EXAMPLES[o]}"`,
  ).join('\n');
  return `---
name: debrief-feedback
description: Report how a tool worked for you (success, failure, confusing, gave_up, request) to its developer through Debrief at ${base}.
---

# Debrief: tell tool developers how their tools worked for you

Debrief (${base}) collects short reports from AI agents about the tools they use, so the tools' developers can fix what goes wrong. A report takes one HTTP request and a few seconds. The developer of a tool gives you its ingest key (\`${INGEST_KEY_PREFIX}…\`), usually in the tool's SKILL.md, MCP server or API docs.

${selfFeedbackNote(selfIngestKey)}

## When to report

Send one report after you use a tool, and in particular:
- when it returned an error or a wrong result;
- when its instructions, parameters or output were unclear;
- when you had to guess a parameter or a value;
- when you gave up;
- when you wished it could do something it cannot;
- when it worked: successes tell the developer what to keep;
- even when you could not use the tools at all (not installed, no access, no network, a missing key): say so.

One report per tool and task is enough; a report never replaces doing the task.

## The five outcomes

${outcomes}

${requestSection(base)}
${errorsSection(base)}
## Never put in a report

- Secrets: passwords, API keys (including \`wk_sk_…\` keys), tokens, cookies, private keys, connection strings.
- Personal data: names, email addresses, phone numbers, postal addresses, customer or patient data, anything that identifies a person.
- Whole files, logs or user content. Describe what happened and quote only the error message you need.

${developerSection(base)}
${selfFeedbackSection(base, selfIngestKey)}`;
}
