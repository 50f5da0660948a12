export {
  DEBRIEF_INSTRUCTIONS,
  debriefInstructions,
  withDebriefInstructions,
} from '@debrief/protocol';
export { attach, createDebriefMcp } from './attach.js';
export { type AttachOptions, DEFAULT_MCP_TIMEOUT_MS, type DebriefMcp } from './debrief-mcp.js';
export {
  DEFAULT_TOOL_NAME,
  FeedbackToolInput,
  FeedbackToolOutput,
  feedbackToolDescription,
  TOOL_TITLE,
} from './feedback-tool.schema.js';
export { type ToolAnswer, toolAnswer } from './tool-answer.js';
