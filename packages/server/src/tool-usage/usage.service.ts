import { USAGE_WINDOW_MAX_AGE_DAYS, type UsageBody, type UsageResponse } from '@debrief/protocol';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors/api-error.js';
import type { Admission } from '../limits/ingest-gate.js';
import { DAY_MS, MINUTE_MS } from '../time/utc-time.js';
import { replaceUsageWindow, ToolNameCapReached } from './tool-usage.repository.js';

/** The usage body as its schema parsed it. */
export type UsageInput = Omit<UsageBody, 'ingest_key'>;

/** A sender's clock may run this far ahead of ours before its window is "in the future". */
const CLOCK_SKEW_MS = 2 * MINUTE_MS;
const MAX_AGE_MS = USAGE_WINDOW_MAX_AGE_DAYS * DAY_MS;
/** Windows are kept a day past the age a resend may have, then only their sums remain. */
export const WINDOWS_KEPT_MS = MAX_AGE_MS + DAY_MS;

/**
 * Stores a sender's counts of one window (POST /v1/usage). The window must be a minute that has
 * started (give or take a sender's clock) and is at most USAGE_WINDOW_MAX_AGE_DAYS old: older
 * windows are settled, and a resend of one could no longer be told from new counts.
 */
export async function recordUsage(
  ctx: Pick<AppContext, 'db' | 'database' | 'config'>,
  admission: Admission,
  body: UsageInput,
): Promise<UsageResponse> {
  const windowStart = new Date(body.window_start);
  const now = Date.now();
  if (windowStart.getTime() > now + CLOCK_SKEW_MS) {
    throw windowError(
      `is in the future (now is ${new Date(now).toISOString()}): send the UTC minute the counts started at, after it has started; check the sender's clock`,
    );
  }
  if (windowStart.getTime() < now - MAX_AGE_MS) {
    throw windowError(
      `is more than ${USAGE_WINDOW_MAX_AGE_DAYS} days old: counts are accepted for the last ${USAGE_WINDOW_MAX_AGE_DAYS} days only; drop older ones`,
    );
  }
  const tools = Object.entries(body.tools).map(([toolName, counts]) => ({
    toolName,
    calls: counts.calls,
    errors: counts.errors,
  }));
  try {
    await replaceUsageWindow(
      ctx.db,
      ctx.database.dialect,
      {
        projectId: admission.projectId,
        windowStart,
        instance: body.instance ?? '',
        serverVersion: body.server_version ?? '',
        tools,
      },
      new Date(now - WINDOWS_KEPT_MS),
      ctx.config.maxToolNamesPerProject,
    );
  } catch (error) {
    if (!(error instanceof ToolNameCapReached)) throw error;
    const shown = error.newNames.slice(0, 5).map((name) => JSON.stringify(name));
    throw new ApiError(
      'too_many_tool_names',
      `The project's call counts already name as many distinct tools as this instance allows (${error.cap}), and this window brings new ones (${shown.join(', ')}${error.newNames.length > 5 ? ', …' : ''}); nothing was stored. Count calls under the fixed names of your tools, not per-call names; send the other tools' counts without these.`,
    );
  }
  return {
    ok: true,
    window_start: `${windowStart.toISOString().slice(0, 19)}Z`,
    tools: tools.length,
  };
}

function windowError(message: string): ApiError {
  return new ApiError('validation_failed', `window_start ${message}.`, {
    errors: [{ field: 'window_start', message }],
  });
}
