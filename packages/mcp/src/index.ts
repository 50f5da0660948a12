export { type AttachOptions, attach, DEFAULT_MCP_TIMEOUT_MS } from './attach.js';
export {
  DEFAULT_TOOL_NAME,
  FeedbackToolInput,
  feedbackToolDescription,
  TOOL_TITLE,
} from './feedback-tool.schema.js';
export { toolAnswer } from './tool-answer.js';
