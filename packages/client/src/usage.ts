/** Calls and errors of one tool (or route) in one window. */
export interface ToolUsage {
  calls: number;
  errors: number;
}

/**
 * Body of `POST /v1/usage`, without the key (the reporter adds it). Debrief keeps one row per
 * `instance` and `window_start`, so sending the same window again does not count it twice.
 */
export interface UsageInput {
  /** Start of the counted window, `YYYY-MM-DDThh:mm:ssZ` (UTC). */
  window_start: string;
  /** Which process counted: windows of several instances add up, one instance's never twice. */
  instance?: string;
  /** The host's own version, so rates can be compared across releases. */
  server_version?: string;
  tools: Record<string, ToolUsage>;
}
