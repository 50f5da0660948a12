export { FeedbackBody } from './feedback-body.schema.js';
export { feedbackOpenApi, feedbackOpenApiPaths } from './feedback-openapi.js';
export {
  DEFAULT_FEEDBACK_PATH,
  DEFAULT_FORWARD_TIMEOUT_MS,
  type FeedbackRouterOptions,
  feedbackRouter,
} from './feedback-router.js';
