import {
  API_KEY_PREFIX,
  INGEST_KEY_PREFIX,
  isSecretKeyLike,
  type ProblemDetails,
  problem,
} from '@debrief/protocol';

/** `ingestKey` option, else `DEBRIEF_INGEST_KEY` (so `process.env` need not be threaded through). */
export function resolveIngestKey(ingestKey?: string): string {
  const fromEnv =
    typeof process !== 'undefined' && typeof process.env === 'object'
      ? process.env.DEBRIEF_INGEST_KEY
      : undefined;
  return (ingestKey || fromEnv || '').trim();
}

/**
 * Key problems the client can see without asking: no key at all, or a secret key, which must
 * never travel in a report body. Same codes as the server; other key errors are the server's.
 */
export function localKeyProblem(key: string, baseUrl: string): ProblemDetails | null {
  if (key === '') {
    return problem(
      baseUrl,
      'missing_ingest_key',
      'No ingest key was configured: pass ingestKey (wk_ followed by 32 hex characters, shown in the Debrief dashboard) or set DEBRIEF_INGEST_KEY.',
    );
  }
  if (isSecretKeyLike(key)) {
    return problem(
      baseUrl,
      'secret_key_not_allowed',
      `The configured ingest key is a secret API key (${API_KEY_PREFIX}…); it was not sent. Secret keys read data and must never be embedded in agents or client code: use the project's public ingest key (${INGEST_KEY_PREFIX} + 32 hex characters) instead, and consider revoking the exposed API key.`,
    );
  }
  return null;
}
