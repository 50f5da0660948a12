/**
 * The credentials Debrief never stores (docs/operating.md, Secrets and redaction), kept in the
 * protocol so the add-ons strip them from captured errors before they leave the host: one entry per
 * kind, in priority order. Where two matches overlap, the earlier entry wins, so the specific kinds
 * (an Anthropic key is also an `sk-…` string, a JWT is often a bearer token) come before the
 * generic ones.
 *
 * Why a table of our own rather than secretlint's recommended preset on the hot path, measured on
 * this project's 2-vCPU VM (docs/architecture.md, Why it is built this way): `lintSource` with the
 * preset costs 1.5–1.7 ms per 500-character text, async, against ~50 µs of server CPU for a whole
 * submit; and it finds none of JWTs, bearer tokens, Stripe keys, `sk-proj-` OpenAI keys or AWS keys
 * that contain EXAMPLE (it allows those on purpose, for documentation). The table below is
 * synchronous and runs only on text that hits PREFILTER. Its patterns follow secretlint's rules
 * where those exist, and a test (redaction.secretlint.test.ts) runs the preset over the same
 * fixtures and checks that whatever it finds is redacted here too, so the preset stays the
 * yardstick.
 *
 * A pattern's match is what gets replaced: a lookbehind keeps context (`Bearer `, `user:`)
 * in the text. Each must stay linear: no nested quantifiers.
 */

export interface SecretPattern {
  /** Goes into `[REDACTED:<kind>]`; stable snake_case (listed in docs/operating.md). */
  kind: string;
  /** Global (and sticky-free) regex; each match is one redaction. */
  pattern: RegExp;
  /** A second look at a match the regex alone cannot judge (entropy-ish checks). */
  accept?: (match: string) => boolean;
  /**
   * Redact only this capture group (the pattern needs the `d` flag): for context that must be
   * matched, not just looked behind at — a variable-length lookbehind is tried at every
   * position of the text, and one of 200 characters costs ~800 µs per report.
   */
  group?: number;
}

/** A token that looks random: a digit, or both cases (plain words and kebab names are neither). */
const looksRandom = (token: string) =>
  /\d/.test(token) || (/[a-z]/.test(token) && /[A-Z]/.test(token));
/** An AWS secret access key is 40 base64 characters of both cases: a hex SHA-1 is not one. */
const mixedCase = (token: string) => /[a-z]/.test(token) && /[A-Z]/.test(token);

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  // PEM private keys (RSA, EC, OPENSSH, ENCRYPTED, PGP "PRIVATE KEY BLOCK", and a GCP service
  // account's "private_key"): the whole block, or to the end of the text if it was cut off.
  {
    kind: 'private_key',
    pattern:
      /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$(?![\s\S]))/g,
  },
  // Debrief's own API keys (wk_sk_ + base62 + checksum). Ingest keys (wk_ + 32 hex) are public
  // by design and never match: hex has no "sk_".
  { kind: 'debrief_api_key', pattern: /\bwk_sk_[A-Za-z0-9]{20,}/g },
  { kind: 'anthropic_key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  // sk-…, sk-proj-…, sk-svcacct-…, sk-admin-… (secretlint matches only the T3BlbkFJ-marked form).
  {
    kind: 'openai_key',
    pattern: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g,
    accept: looksRandom,
  },
  // Classic (ghp_ personal, gho_ OAuth, ghu_/ghs_ app, ghr_ refresh) and fine-grained tokens.
  {
    kind: 'github_token',
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})/g,
  },
  { kind: 'gitlab_token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: 'slack_token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  {
    kind: 'slack_webhook',
    pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9_/+-]{20,}/g,
  },
  // Secret and restricted keys; publishable keys (pk_…) are public by design.
  { kind: 'stripe_key', pattern: /\b[sr]k_(?:live|test)_[A-Za-z0-9]{10,}/g },
  { kind: 'stripe_webhook_secret', pattern: /\bwhsec_[A-Za-z0-9+/=]{20,}/g },
  { kind: 'npm_token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'sendgrid_key', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g },
  { kind: 'gcp_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  // Access key ids: AKIA (long-term), ASIA (temporary), and the rarer prefixes.
  { kind: 'aws_access_key_id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g },
  // A secret access key where it is named (aws_secret_access_key=…, "SecretAccessKey": "…")…
  {
    kind: 'aws_secret_access_key',
    pattern:
      /(?<=(?:secret_?access_?key|aws_?secret(?:_?key)?)["']?\s*[:=]\s*["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/gi,
  },
  // …and unnamed, within 200 characters after an access key id (they travel in pairs).
  {
    kind: 'aws_secret_access_key',
    pattern:
      /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b[\s\S]{0,200}?(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/dg,
    group: 1,
    accept: mixedCase,
  },
  // header.payload.signature, both JSON parts base64url of '{"'.
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g },
  // `Authorization: Bearer …` and a bare `Bearer <token>`; the word stays, the token goes.
  {
    kind: 'bearer_token',
    pattern: /(?<=\bbearer\s+)[A-Za-z0-9._~+/=-]{16,}/gi,
    accept: looksRandom,
  },
  { kind: 'basic_auth', pattern: /(?<=\bauthorization\s*:\s*basic\s+)[A-Za-z0-9+/=]{8,}/gi },
  // scheme://user:password@host (database URLs, git remotes, proxies): the password only.
  { kind: 'url_password', pattern: /(?<=\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:)[^/\s@]+(?=@)/gi },
  // Key=value connection strings, environment dumps and command lines (Password=…; pwd=…,
  // DB_PASSWORD=…, --password=…) and a JSON "password": "…". Not `password: x`, which prose uses ("password: must be 8 long").
  {
    kind: 'password',
    pattern: /(?<=(?:password|passwd|pwd)\s*=\s*["']?)[^\s;'",&]+/gi,
  },
  { kind: 'password', pattern: /(?<="(?:password|passwd|pwd)"\s*:\s*")[^"]+(?=")/gi },
];

/**
 * The distinctive markers of every pattern above, in one regex: a text that does not match it
 * cannot match any of them, and is left alone without running the table (the common case).
 * Keep in step with the table: a test checks each fixture's kind passes it.
 */
export const SECRET_PREFILTER =
  /AKIA|ASIA|ABIA|ACCA|A3T|[Ss]ecret_?[Aa]ccess|SECRET_?ACCESS|[Aa]ws_?[Ss]ecret|AWS_?SECRET|AIza|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|hooks\.slack\.com|[rs]k_(?:live|test)_|whsec_|sk-|npm_|SG\.|eyJ|-----BEGIN|:\/\/[^/\s:@]+:[^/\s@]+@|[Bb]earer|BEARER|[Aa]uthorization|AUTHORIZATION|wk_sk_|[Pp]ass(?:wd|word)|PASS(?:WD|WORD)|[Pp]wd|PWD/;
