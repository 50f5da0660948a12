/** The five things an agent can say about a tool, in the order the dashboard shows them. */
export const OUTCOMES = ['success', 'failure', 'confusing', 'gave_up', 'request'] as const;

/** One line per outcome, shared by skill.md, the MCP tool description and the OpenAPI document. */
export const OUTCOME_MEANINGS: Record<(typeof OUTCOMES)[number], string> = {
  success: 'the tool did what you needed',
  failure: 'the tool returned an error or a wrong result',
  confusing: 'the tool worked, but its instructions, parameters or output were unclear',
  gave_up: 'you could not get the tool to work (or could not use it at all) and stopped trying',
  request: 'a capability you wished the tool had',
};
