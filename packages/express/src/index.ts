export { FeedbackBody } from './feedback-body.schema.js';
export {
  DEFAULT_OPERATION_ID,
  feedbackOpenApi,
  feedbackOpenApiPaths,
  feedbackOperation,
} from './feedback-openapi.js';
export {
  DEFAULT_FEEDBACK_PATH,
  DEFAULT_FORWARD_TIMEOUT_MS,
  type FeedbackRouter,
  type FeedbackRouterOptions,
  feedbackRouter,
} from './feedback-router.js';
export { routeName } from './host-observer.js';
