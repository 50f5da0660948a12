import { OUTCOME_MEANINGS, OUTCOMES } from './outcomes.js';
import { ReportInput } from './report.schema.js';

/**
 * Body of `POST /feedback`, the route `@debrief/express` mounts in a host's API (kept here so
 * the router and the Integrate page's OpenAPI fragment share it): the protocol's report fields without the key (the router holds it)
 * and without `source` (the router sets it). Same field schemas, so the same messages.
 */
export const FeedbackBody = ReportInput.omit({ source: true }).extend({
  outcome: ReportInput.shape.outcome.describe(
    `How it went: ${OUTCOMES.map((o) => `${o} = ${OUTCOME_MEANINGS[o]}`).join('; ')}.`,
  ),
  details: ReportInput.shape.details.describe(
    'What happened, in plain words: what you tried, what you expected, what you got. 1-10,000 characters. No secrets or personal data.',
  ),
  tool_name: ReportInput.shape.tool_name.describe(
    'The endpoint or tool the report is about, e.g. "GET /v1/search". Optional.',
  ),
  metadata: ReportInput.shape.metadata.describe(
    'Optional flat object of string, number or boolean values (agent name, model, session id); at most 20 keys and 2 KiB.',
  ),
});
