import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useAction } from '../api/use-action';
import { useSession } from '../session-context';
import { ErrorNotice } from '../ui/notice';

/**
 * The issue's title, and renaming it. A title given here stays: the grouper names an issue
 * only when it creates it.
 */
export function IssueTitle({
  path,
  title,
  onRenamed,
}: {
  path: string;
  title: string;
  onRenamed(): void;
}) {
  const { api } = useSession();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(title);
  const save = useAction();
  const renameButton = useRef<HTMLButtonElement>(null);
  const [refocus, setRefocus] = useState(false);
  useEffect(() => {
    if (editing || !refocus) return;
    renameButton.current?.focus();
    setRefocus(false);
  }, [editing, refocus]);

  const cancel = () => {
    setEditing(false);
    save.clear();
    setRefocus(true);
  };
  async function submit(event: FormEvent) {
    event.preventDefault();
    const ok = await save.run(() => api.patch(path, { title: text.trim() }));
    if (ok) {
      setEditing(false);
      setRefocus(true);
      onRenamed();
    }
  }

  if (!editing) {
    return (
      <div className="issue-title-row">
        <h2 className="issue-heading">{title}</h2>
        <button
          ref={renameButton}
          type="button"
          className="button button-small button-ghost"
          onClick={() => {
            setText(title);
            setEditing(true);
          }}
        >
          Rename
        </button>
      </div>
    );
  }
  return (
    <form
      className="inline-form issue-rename"
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === 'Escape') cancel();
      }}
    >
      <label className="field field-grow">
        <span>Issue title</span>
        <input
          required
          maxLength={200}
          value={text}
          // biome-ignore lint/a11y/noAutofocus: the user just asked to edit this field
          autoFocus
          onChange={(event) => setText(event.target.value)}
        />
      </label>
      <button type="submit" className="button button-primary" disabled={!text.trim() || save.busy}>
        Save title
      </button>
      <button type="button" className="button" onClick={cancel}>
        Cancel
      </button>
      <ErrorNotice error={save.error} />
    </form>
  );
}
