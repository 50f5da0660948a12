/**
 * Fabricated credentials of every kind Debrief redacts: well-formed (prefix, length, alphabet)
 * but never issued by anyone. Built from pieces so that secret scanners of this repository do
 * not take the file itself for a leak.
 */
const b62 = 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4y5Z6';
const pem = (label: string) =>
  `-----BEGIN ${label}-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n-----END ${label}-----`;

export interface SecretFixture {
  kind: string;
  /** The credential itself (what must disappear). */
  secret: string;
  /** How it appears in a report; defaults to a sentence around the secret. */
  text?: string;
}

export const SECRET_FIXTURES: SecretFixture[] = [
  { kind: 'aws_access_key_id', secret: `AKIA${'Q3EGWBYT7KZ5XN2M'}` },
  { kind: 'aws_access_key_id', secret: `ASIA${'Y7MZ2LQ4XW8N3KPD'}` },
  // AWS's documentation example: secretlint allows it, a leak of it is still a leak.
  { kind: 'aws_access_key_id', secret: `AKIA${'IOSFODNN7EXAMPLE'}` },
  {
    kind: 'aws_secret_access_key',
    secret: `wJalrXUtnFEMI/K7MDENG/${'bPxRfiCYEXAMPLEKEY'}`,
    text: `export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/${'bPxRfiCYEXAMPLEKEY'} then retried`,
  },
  {
    kind: 'aws_secret_access_key',
    secret: `Zx9Qm2Lp7Rt4Vb8Nc3Kd6Fg1Hj5/Ws0Ey+Ua2I${'7T'}`,
    text: `creds: AKIA${'Q3EGWBYT7KZ5XN2M'} Zx9Qm2Lp7Rt4Vb8Nc3Kd6Fg1Hj5/Ws0Ey+Ua2I${'7T'} (both)`,
  },
  { kind: 'gcp_api_key', secret: `AIza${'SyD4x9Qm2Lp7Rt4Vb8Nc3Kd6Fg1Hj5Ws0Eq'}` },
  {
    kind: 'private_key',
    secret: pem('PRIVATE KEY'),
    text: `{"type": "service_account", "private_key": "${pem('PRIVATE KEY').replaceAll('\n', '\\n')}"}`,
  },
  { kind: 'private_key', secret: pem('RSA PRIVATE KEY') },
  { kind: 'private_key', secret: pem('OPENSSH PRIVATE KEY') },
  { kind: 'github_token', secret: `ghp_${b62.slice(0, 36)}` },
  { kind: 'github_token', secret: `gho_${b62.slice(1, 37)}` },
  { kind: 'github_token', secret: `ghs_${b62.slice(2, 38)}` },
  { kind: 'github_token', secret: `github_pat_11ABCDEFG0${b62.slice(0, 12)}_${b62.slice(0, 50)}` },
  { kind: 'gitlab_token', secret: `glpat-${b62.slice(0, 20)}` },
  { kind: 'slack_token', secret: `xoxb-${'1234567890123-1234567890123-'}${b62.slice(0, 24)}` },
  {
    kind: 'slack_token',
    secret: `xoxp-${'1234567890-1234567890-1234567890-'}${'0123456789abcdef'}`,
  },
  {
    kind: 'slack_webhook',
    secret: `https://hooks.slack.com/services/T0123ABCD/B0123ABCD/${b62.slice(0, 24)}`,
  },
  { kind: 'stripe_key', secret: `sk_live_${b62.slice(0, 24)}` },
  { kind: 'stripe_key', secret: `sk_test_${b62.slice(3, 27)}` },
  { kind: 'stripe_key', secret: `rk_live_${b62.slice(5, 29)}` },
  { kind: 'stripe_webhook_secret', secret: `whsec_${b62.slice(0, 32)}` },
  { kind: 'openai_key', secret: `sk-${b62.slice(0, 20)}T3BlbkFJ${b62.slice(20, 40)}` },
  { kind: 'openai_key', secret: `sk-proj-${b62.slice(0, 48)}_${b62.slice(0, 40)}` },
  { kind: 'openai_key', secret: `sk-${b62.slice(0, 48)}` },
  { kind: 'anthropic_key', secret: `sk-ant-api03-${b62}${b62.slice(0, 40)}-${'AA'}` },
  { kind: 'npm_token', secret: `npm_${b62.slice(0, 36)}` },
  { kind: 'sendgrid_key', secret: `SG.${b62.slice(0, 22)}.${b62.slice(0, 43)}` },
  {
    kind: 'jwt',
    secret: `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiaWF0IjoxNTE2MjM5MDIyfQ.${'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'}`,
  },
  {
    kind: 'bearer_token',
    secret: `ya29.${b62.slice(0, 30)}`,
    text: `curl -H "Authorization: Bearer ya29.${b62.slice(0, 30)}" https://api.example.com/v1`,
  },
  {
    kind: 'bearer_token',
    secret: 'f3a9c2e17b4d4e0a9c1b2d3e4f5a6b7c',
    text: 'sent Bearer f3a9c2e17b4d4e0a9c1b2d3e4f5a6b7c and got 401',
  },
  {
    kind: 'basic_auth',
    secret: 'YWxhZGRpbjpvcGVuc2VzYW1l',
    text: 'header Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l was refused',
  },
  {
    kind: 'url_password',
    secret: 'hunter2-Secret',
    text: 'could not connect to postgres://app_user:hunter2-Secret@db.internal:5432/app',
  },
  {
    kind: 'url_password',
    secret: 'p4ssw0rd',
    text: 'git clone https://deploy:p4ssw0rd@git.example.com/org/repo.git failed',
  },
  {
    kind: 'password',
    secret: 'S3cr3t!pw',
    text: 'Server=db;Database=app;User Id=sa;Password=S3cr3t!pw;Encrypt=true',
  },
  {
    kind: 'password',
    secret: 'correct-horse-9',
    text: 'ran mysql --password=correct-horse-9 -h db',
  },
  { kind: 'password', secret: 'tr0ub4dor', text: 'env had DB_PASSWORD=tr0ub4dor set' },
  {
    kind: 'password',
    secret: 'letmein42',
    text: 'body was {"user": "bob", "password": "letmein42"}',
  },
  { kind: 'debrief_api_key', secret: `wk_sk_${b62.slice(0, 32)}Ab12Cd` },
];

/** Text full of ids, paths, hashes and times that are not secrets and must stay as they are. */
export const BENIGN_TEXTS: string[] = [
  'Report 01a1fe88f6c47000aa9b038a5831a8ee stored at 2026-11-21T14:35:49Z (took 12 ms).',
  // Ingest keys are public by design (they sit in SKILL.md files): not a secret.
  'The SKILL.md uses ingest key wk_0123456789abcdef0123456789abcdef as documented.',
  'Commit 3f786850e387550fdab836ed7e6dc881de23001b touched /usr/local/lib/node_modules/x/index.js',
  'UUID 123e4567-e89b-12d3-a456-426614174000 and sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'Fetched https://api.example.com/v1/users?page=2&limit=50 and http://localhost:8080/docs#error-quota_exceeded',
  'The --password flag is required; password: must be at least 8 characters.',
  'Used the bearer token from the environment, as the docs said (Authorization header).',
  'Called search-api with risk-assessment-framework and the task-scheduling-service-runner.',
  'AWS region us-east-1, bucket my-bucket, ARN arn:aws:s3:::my-bucket/key.txt',
  'IP 192.168.1.100 port 5432, version 1.2.3, took 1234567 ms, order 20260101, 2026-11-21',
  'Set the publishable key pk_live_abc123 in the page; sk- prefix docs were unclear.',
  'Base64 payload dGhpcyBpcyBub3QgYSBzZWNyZXQgYXQgYWxs and the eyJ prefix of JSON in base64.',
];
