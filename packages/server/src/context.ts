import type { Kysely } from 'kysely';
import type { PasswordHasher } from './accounts/password-hasher.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { DB } from './db/schema.js';
import type { AnswerableIssues } from './issues/agent-loop/index.js';
import type { IssueListExtras } from './issues/issue-list-extras.js';
import type { Grouper } from './issues/pipeline/index.js';
import type { ApiKeys } from './keys/key.service.js';
import type { ForwardingSecrets } from './limits/forwarding/forwarding-secrets.js';
import type { IngestGate } from './limits/ingest-gate.js';
import type { ThrottleLog } from './limits/throttle-log.js';
import type { Deliverer } from './notifications/index.js';
import type { OwnedProjects } from './projects/project.service.js';
import type { EventBus } from './realtime/event-bus.js';
import type { IssueAnswerPort } from './reports/issue-answer-port.js';
import type { ReportScreen } from './reports/screening/report-screen.js';
import type { ReportWriter } from './reports/write-path/index.js';
import type { Sessions } from './sessions/session.service.js';

/**
 * Everything a service needs, built once at start (`buildContext`) and passed in: no module
 * holds a database, a config or a bus of its own.
 */
export interface AppContext {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  bus: EventBus;
  reportWriter: ReportWriter;
  /** The token buckets of POST /v1/reports (limits/ingest-gate.ts). */
  ingestGate: IngestGate;
  /** The projects' forwarding secrets, for trusted hosts (limits/forwarding/). */
  forwardingSecrets: ForwardingSecrets;
  /** Counts of refused submissions, for the dashboard (limits/throttle-log.ts). */
  throttles: ThrottleLog;
  /** Every password hash and check, bounded in number at once. */
  passwords: PasswordHasher;
  /** Redaction and label caps, before the writer (reports/screening/). */
  reportScreen: ReportScreen;
  /** Places reports in issues in the background (issues/pipeline/grouper.ts); started with the context. */
  grouper: Grouper;
  /** Sends the notifications' outbox (notifications/deliverer.ts); started with the context. */
  deliverer: Deliverer;
  /**
   * The submit answer's `issue` (issues/agent-loop/); null when reports are not grouped
   * (ISSUE_GROUPING=off), and then the answer is the plain `{ok, id}`.
   */
  issueAnswers: IssueAnswerPort | null;
  /** Per project, the issues an agent may be told of; triage invalidates a project's. */
  answerableIssues: AnswerableIssues;
  /** The issues list's per-row trend and possible-duplicate flag, kept per issue (issues/issue-list-extras.ts). */
  issueListExtras: IssueListExtras;
  /** The secret API keys as read requests check them, kept a few seconds (keys/key.service.ts). */
  apiKeys: ApiKeys;
  /** Which account owns which project, kept a few seconds (projects/project.service.ts). */
  ownedProjects: OwnedProjects;
  /** The dashboard's live sessions, kept a few seconds (sessions/session.service.ts). */
  sessions: Sessions;
}
