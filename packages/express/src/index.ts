/** The route's contract lives in the protocol, shared with Debrief's Integrate page. */
export {
  DEFAULT_FEEDBACK_OPERATION_ID,
  FeedbackBody,
  feedbackOpenApi,
  feedbackOpenApiPaths,
  feedbackOperation,
} from '@debrief/protocol';
export {
  DEFAULT_FEEDBACK_PATH,
  DEFAULT_FORWARD_TIMEOUT_MS,
  type FeedbackRouter,
  type FeedbackRouterOptions,
  feedbackRouter,
} from './feedback-router.js';
export { routeName } from './host-observer.js';
