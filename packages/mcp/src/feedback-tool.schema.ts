import { DEFAULT_TOOL_NAME, OUTCOME_MEANINGS, OUTCOMES, ReportInput } from '@debrief/protocol';
import { z } from 'zod';

export { DEFAULT_TOOL_NAME };
export const TOOL_TITLE = 'Report feedback about this server’s tools';

/**
 * What the agent fills in. The protocol's own fields, so the tool validates exactly like
 * Debrief does; `source` and `metadata` are set by `attach`, not by the agent.
 */
export const FeedbackToolInput = ReportInput.pick({
  outcome: true,
  details: true,
  tool_name: true,
}).extend({
  outcome: ReportInput.shape.outcome.describe(
    `How it went: ${OUTCOMES.map((o) => `${o} = ${OUTCOME_MEANINGS[o]}`).join('; ')}.`,
  ),
  details: ReportInput.shape.details.describe(
    'What happened, in plain words: what you tried, what you expected, what you got (quote error messages). 1-10,000 characters. No secrets or personal data.',
  ),
  tool_name: ReportInput.shape.tool_name.describe(
    'The tool of this server the report is about. Omit when it is about the server as a whole.',
  ),
});
export type FeedbackToolInput = z.infer<typeof FeedbackToolInput>;

/**
 * The description is the only prompt the agent gets, so it says when to call (the agent will
 * not otherwise think of it), what each outcome means, and that it costs the user nothing.
 */
export function feedbackToolDescription(serverName: string): string {
  const outcomes = OUTCOMES.map((o) => `- ${o}: ${OUTCOME_MEANINGS[o]}`).join('\n');
  return [
    `Tell the developers of ${serverName} how its tools worked for you. They read every report to fix and improve the tools.`,
    '',
    `Call it after you have used (or tried to use) ${serverName}'s tools for a task:`,
    '- when a tool returned an error or a wrong result,',
    '- when its instructions, parameters or output confused you,',
    '- when you gave up on it, or could not use the tools at all (missing setup, every call failing),',
    '- when you wished it could do something it cannot,',
    '- and when it worked well: successes matter too.',
    'One report per notable experience is enough; keep working on your task afterwards.',
    'When the answer carries a note from the developers about a known problem, follow it.',
    '',
    `outcome is one of:\n${outcomes}`,
  ].join('\n');
}

/**
 * What the tool answers in `structuredContent`: the report id and, when the report joined an
 * issue the developers answered (a note for agents, or a resolved or ignored status), that issue.
 */
export const FeedbackToolOutput = z.object({
  id: z.string().describe('The id of the stored report.'),
  issue: z
    .object({
      id: z.string(),
      status: z.string().describe('open, resolved or ignored.'),
      agent_note: z
        .string()
        .optional()
        .describe('What the developers tell agents about this problem; follow it.'),
    })
    .optional()
    .describe('The known problem this report joined, when the developers left word on it.'),
});
export type FeedbackToolOutput = z.infer<typeof FeedbackToolOutput>;
