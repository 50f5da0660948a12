/**
 * Issues with agent notes for the ingest bench's "noted project" row: `count` issues of the
 * bench body's tool and kind, each with an agent note, none of which the bench's report joins.
 * So every report of that row is matched against them (issues/agent-loop/: the project is not
 * one that pays nothing), and none waits for its placement. Signatures come from the real engine.
 * DEBRIEF_BENCH_NOTED=join adds one the reports do join: each then waits for its placement (a
 * look at that cost, not a judged row).
 */
import { randomBytes } from 'node:crypto';
import {
  fingerprint,
  serializeSignature,
  TERMS_VERSION,
} from '../packages/server/src/issues/grouping/index.js';
import {
  closeSeedConnection,
  openSeedConnection,
  query,
  stampTermsVersion,
} from './seed-connection.js';

const SUBJECTS = [
  'export',
  'invoice',
  'calendar',
  'upload',
  'webhook',
  'billing',
  'login',
  'quota',
];
const FAULTS = ['timed out', 'answered 500', 'ran out of memory', 'dropped the connection'];

export async function seedNotedIssues(
  databaseUrl: string,
  projectId: string,
  toolName: string,
  count: number,
  /** The bench's own details: one more issue, which its reports then join (every one waits). */
  joined: string | null = null,
): Promise<void> {
  const conn = await openSeedConnection(databaseUrl);
  try {
    const now = new Date().toISOString();
    for (let i = 0; i < count + (joined === null ? 0 : 1); i++) {
      const details =
        i === count && joined !== null
          ? joined
          : `The ${SUBJECTS[i % SUBJECTS.length]} job ${i} ${FAULTS[i % FAULTS.length]} after ${i * 7} rows of batch b${i}.`;
      const signature = fingerprint({ outcome: 'failure', tool_name: toolName, details });
      await query(
        conn,
        `insert into issues (id, project_id, status, title, tool_name, kind, signature, outcome,
           report_count, count_success, count_failure, count_confusing, count_gave_up, count_request,
           sample_details, first_seen, last_seen, agent_note, created_at, updated_at)
         values (?, ?, 'open', ?, ?, 'problem', ?, 'failure', 1, 0, 1, 0, 0, 0, ?, ?, ?, ?, ?, ?)`,
        [
          randomBytes(16).toString('hex'),
          projectId,
          details.slice(0, 80),
          toolName,
          serializeSignature(signature),
          details,
          now,
          now,
          `Known problem ${i}: retry with a smaller batch until 2.${i % 10}.`,
          now,
          now,
        ],
      );
    }
    await stampTermsVersion(conn, [projectId], TERMS_VERSION);
  } finally {
    await closeSeedConnection(conn);
  }
}
