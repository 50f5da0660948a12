import { AGENT_NOTE_MAX_LENGTH } from '@debrief/protocol';
import { useEffect, useRef, useState } from 'react';
import { useAction } from '../api/use-action';
import { useSession } from '../session-context';
import { ErrorNotice } from '../ui/notice';

/**
 * The issue's note to agents: told, word for word, to every agent whose report joins this
 * issue (the submit answer's `issue.agent_note`). Kept apart from the private note, and says so,
 * so a developer never publishes an internal remark by mistake.
 */
export function AgentNote({
  path,
  agentNote,
  onSaved,
}: {
  path: string;
  agentNote: string | null;
  onSaved(): void;
}) {
  const { api } = useSession();
  const [text, setText] = useState(agentNote ?? '');
  const shown = useRef(agentNote ?? '');
  const save = useAction();
  // A note saved elsewhere (another tab, or this form's own save) replaces the text unless
  // the text is being edited.
  useEffect(() => {
    setText((current) => (current === shown.current ? (agentNote ?? '') : current));
    shown.current = agentNote ?? '';
  }, [agentNote]);
  const dirty = text !== (agentNote ?? '');
  return (
    <section className="card agent-note" aria-labelledby="issue-agent-note-title">
      <h3 id="issue-agent-note-title" className="card-title">
        Note to agents
      </h3>
      <p className="muted small" id="issue-agent-note-help">
        Shown to every agent whose report joins this issue, in the answer to its report: a
        workaround, “fixed in 2.3, upgrade”, “not planned”. Agents never see the note above.
      </p>
      <form
        className="issue-note"
        onSubmit={async (event) => {
          event.preventDefault();
          const ok = await save.run(() =>
            api.patch(path, { agent_note: text.trim() ? text : null }),
          );
          if (ok) {
            shown.current = text;
            onSaved();
          }
        }}
      >
        <textarea
          aria-label="Note to agents"
          aria-describedby="issue-agent-note-help"
          rows={3}
          maxLength={AGENT_NOTE_MAX_LENGTH}
          value={text}
          placeholder="Use page= instead of cursor= until 2.3."
          onChange={(event) => setText(event.target.value)}
        />
        <div className="issue-note-actions">
          <button type="submit" className="button button-small" disabled={!dirty || save.busy}>
            Save agent note
          </button>
          <span className="muted small">
            {text.length.toLocaleString('en-US')} / {AGENT_NOTE_MAX_LENGTH.toLocaleString('en-US')}
          </span>
          {!dirty && agentNote && <span className="muted small">Saved: agents see it</span>}
        </div>
        <ErrorNotice error={save.error} />
      </form>
    </section>
  );
}
