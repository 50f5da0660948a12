export const DEFAULT_BASE_URL = 'http://localhost:8080';

/**
 * `baseUrl` option, else `DEBRIEF_URL`, else the local default. `process` is guarded because
 * the client also runs in browsers, Deno and edge runtimes where it may not exist.
 */
export function resolveBaseUrl(baseUrl?: string): string {
  const fromEnv =
    typeof process !== 'undefined' && typeof process.env === 'object'
      ? process.env.DEBRIEF_URL
      : undefined;
  const chosen = baseUrl || fromEnv || DEFAULT_BASE_URL;
  return chosen.replace(/\/+$/, '');
}
