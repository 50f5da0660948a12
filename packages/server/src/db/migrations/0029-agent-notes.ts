import { type Kysely, type Migration, sql } from 'kysely';

/**
 * `issues.agent_note`: what the developer tells the agents that report an issue (a workaround,
 * "fixed in 2.3, upgrade"), returned in the submit answer (issues/agent-loop/). Apart from the
 * private `note`, which no ingest key ever reads.
 *
 * The partial index holds only the issues the submit answer can name (a note, or a closed
 * status), most recently seen first: the agent-loop index reads a project's through it, and a
 * project with none reads nothing.
 */
export function agentNotesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('issues').addColumn('agent_note', 'text').execute();
      // The same predicate as the agent-loop index's read (agent-note.repository.ts).
      await sql`create index issues_answerable_by_project_seen on issues (project_id, last_seen) where agent_note is not null or status <> 'open'`.execute(
        db,
      );
    },
  };
}
