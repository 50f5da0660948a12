/**
 * Start-up failed for a reason the operator fixes rather than a bug: a DATABASE_URL that is not a
 * database or cannot be reached, a PORT already in use. The message names the setting and says
 * what to change; the CLI prints it alone, as it does a ConfigError, without a stack trace.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** DATABASE_URL as it can be shown: a PostgreSQL password is masked. */
export function printableDatabaseUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}
