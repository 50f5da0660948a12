import type { ReportResult } from '@debrief/client';
import type { FeedbackToolOutput } from './feedback-tool.schema.js';

/**
 * A tool result as both SDK majors take it. Kept structural, so the shared core imports neither
 * SDK and each entry point needs only the one its host installed.
 */
export interface ToolAnswer {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: FeedbackToolOutput;
  isError?: boolean;
}

/**
 * Short text for the agent. A failure is an `isError` result, never a thrown error, and always
 * says to carry on: the agent's task matters more than the feedback.
 */
export function toolAnswer(result: ReportResult, serverName: string): ToolAnswer {
  if (result.ok) {
    const structured: FeedbackToolOutput = {
      id: result.id,
      ...(result.issue ? { issue: result.issue } : {}),
    };
    const lines = [
      `Thank you: your feedback reached the developers of ${serverName} (report ${result.id}).`,
    ];
    if (result.issue) lines.push(issueSentence(result.issue));
    // The same answer as JSON too: clients that show only text still hand the note to the model.
    return {
      content: [
        { type: 'text', text: lines.join(' ') },
        { type: 'text', text: JSON.stringify(structured) },
      ],
      structuredContent: structured,
    };
  }
  const { error } = result;
  let reason: string;
  if (error.code === 'quota_exceeded') {
    const when =
      result.retry_after_seconds !== undefined
        ? ` (it resets in ${humanDuration(result.retry_after_seconds)})`
        : '';
    reason = `the developers' feedback quota for this month is used up${when}. Do not retry now.`;
  } else if (error.code === 'timeout' || error.code === 'network_error' || error.status >= 500) {
    reason = `the feedback service is unreachable right now (${error.code}). Do not retry now.`;
  } else if (error.status === 401 || error.status === 403) {
    // A key problem is the developer's to fix; the agent cannot, so do not hand it the details.
    reason = `this server's feedback setup is wrong (${error.code}); its developers have been told.`;
  } else {
    reason = error.detail;
  }
  return { ...text(`Feedback not delivered: ${reason} Carry on with your task.`), isError: true };
}

function issueSentence(issue: NonNullable<FeedbackToolOutput['issue']>): string {
  const known =
    issue.status === 'resolved'
      ? 'This is a known problem the developers have marked as fixed.'
      : issue.status === 'ignored'
        ? 'This is a known problem the developers do not plan to change.'
        : 'This is a known problem the developers are aware of.';
  return issue.agent_note ? `${known} Their note for agents: ${issue.agent_note}` : known;
}

function text(message: string): ToolAnswer {
  return { content: [{ type: 'text', text: message }] };
}

function humanDuration(seconds: number): string {
  if (seconds < 120) return `${seconds} seconds`;
  if (seconds < 2 * 3600) return `${Math.round(seconds / 60)} minutes`;
  if (seconds < 48 * 3600) return `${Math.round(seconds / 3600)} hours`;
  return `${Math.round(seconds / 86400)} days`;
}
