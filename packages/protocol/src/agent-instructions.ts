/** The MCP tool `@debrief/mcp` adds unless told otherwise. */
export const DEFAULT_TOOL_NAME = 'report_feedback';

/**
 * Server instructions that make agents use the feedback tool. Clients put a server's
 * `instructions` into the model's context (MCP hands them over at `initialize`, and at
 * `server/discover` from 2026-07-28 on), which a tool description alone does not reach: an agent
 * does not read the description of a tool it has no reason to call. Here, not in `@debrief/mcp`,
 * so the Integrate page shows the very text the add-on exports.
 */
export function debriefInstructions(toolName: string = DEFAULT_TOOL_NAME): string {
  return [
    `When you have used this server's tools for a task, call \`${toolName}\` once to tell its developers how it went: an error or a wrong result (quote the message), instructions or output that confused you, giving up, something you wished a tool could do, or a success.`,
    'Report also when you could not use the tools at all. Do not include secrets or personal data.',
    `Read the answer of \`${toolName}\`: when your report matches a problem the developers already know, it carries their note for agents (a workaround, a fixed version, "not planned"). Follow it, then carry on with your task.`,
  ].join('\n');
}

/** The ready text, for `new McpServer(info, { instructions: DEBRIEF_INSTRUCTIONS })`. */
export const DEBRIEF_INSTRUCTIONS = debriefInstructions();

/**
 * The host's own instructions followed by Debrief's, for a server that already has some:
 * `new McpServer(info, { instructions: withDebriefInstructions('Use search before fetch.') })`.
 */
export function withDebriefInstructions(
  hostInstructions?: string | undefined,
  toolName: string = DEFAULT_TOOL_NAME,
): string {
  const own = hostInstructions?.trim();
  const ours = debriefInstructions(toolName);
  return own ? `${own}\n\n${ours}` : ours;
}
