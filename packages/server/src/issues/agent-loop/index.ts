/**
 * The agent loop: what the developer already knows about an issue, told to the agent whose
 * report joined it (the submit answer's `issue` field). ONE entry: build-context.ts makes the
 * submit path's IssueAnswerPort (reports/issue-answer-port.ts) with createIssueAnswers over an
 * AnswerableIssues list, which triage and the grouper's announcements invalidate.
 */
export {
  ANSWERABLE_FRESH_MS,
  type AnswerableIssue,
  AnswerableIssues,
} from './answerable-issues.js';
export { ANSWER_WAIT_MS, createIssueAnswers, type IssueAnswersDeps } from './issue-answers.js';
