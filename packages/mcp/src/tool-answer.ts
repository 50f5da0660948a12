import type { ReportResult } from '@debrief/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * Short text for the agent. A failure is an `isError` result, never a thrown error, and always
 * says to carry on: the agent's task matters more than the feedback.
 */
export function toolAnswer(result: ReportResult, serverName: string): CallToolResult {
  if (result.ok) {
    return text(
      `Thank you: your feedback reached the developers of ${serverName} (report ${result.id}).`,
    );
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

function text(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }] };
}

function humanDuration(seconds: number): string {
  if (seconds < 120) return `${seconds} seconds`;
  if (seconds < 2 * 3600) return `${Math.round(seconds / 60)} minutes`;
  if (seconds < 48 * 3600) return `${Math.round(seconds / 3600)} hours`;
  return `${Math.round(seconds / 86400)} days`;
}
