import { OUTCOMES } from '@debrief/protocol';
import { type FormEvent, type ReactElement, useEffect, useRef, useState } from 'react';
import type { ConsoleProject, CreatedProject } from '../api/console.types';
import { useResource } from '../api/use-resource';
import { Link, navigate } from '../router';
import { useSession } from '../session-context';
import { formatCount, OUTCOME_LABELS } from '../ui/format';
import { ErrorNotice, Loading } from '../ui/notice';
import { RelativeTime } from '../ui/relative-time';
import { useTitle } from '../ui/use-title';

export function ProjectsPage() {
  useTitle('Projects');
  const { api } = useSession();
  const projects = useResource('projects', () => api.get<ConsoleProject[]>('/v1/console/projects'));
  const list = projects.data;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Projects</h1>
          <p className="muted">One project per tool or product. Counts cover the last 7 days.</p>
        </div>
      </div>
      <ErrorNotice error={projects.error} onRetry={projects.reload} />
      {!list && !projects.error && <Loading />}
      {list && list.length === 0 && <CreateProjectForm first />}
      {list && list.length > 0 && (
        <>
          <ul className="project-grid">
            {list.map((project) => (
              <ProjectCard key={project.id} project={project} onRenamed={projects.reload} />
            ))}
          </ul>
          <CreateProjectForm first={false} />
        </>
      )}
    </>
  );
}

function CreateProjectForm({ first }: { first: boolean }) {
  const { api } = useSession();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api.post<CreatedProject>('/v1/console/projects', { name: name.trim() });
      navigate(`/projects/${created.project.id}`);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  }
  return (
    <section className={first ? 'card card-hero' : 'card'} aria-labelledby="create-project">
      <h2 id="create-project">{first ? 'Create your first project' : 'New project'}</h2>
      {first && (
        <p className="muted">
          A project collects the reports about one tool or product. You get a public ingest key to
          give to agents, and a live view of everything they send.
        </p>
      )}
      <form className="inline-form" onSubmit={submit}>
        <label className="field field-grow">
          <span>Project name</span>
          <input
            name="project-name"
            required
            maxLength={100}
            placeholder="e.g. Weather API"
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        </label>
        <button type="submit" className="button button-primary" disabled={busy || !name.trim()}>
          Create project
        </button>
      </form>
      <ErrorNotice error={error} />
    </section>
  );
}

function ProjectCard({ project, onRenamed }: { project: ConsoleProject; onRenamed(): void }) {
  const { api } = useSession();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(project.name);
  const [error, setError] = useState<unknown>(null);
  const counts = project.last_7_days;
  // After a cancelled rename, focus goes back to the Rename button the user started from.
  const renameButton = useRef<HTMLButtonElement>(null);
  const [refocus, setRefocus] = useState(false);
  useEffect(() => {
    if (editing || !refocus) return;
    renameButton.current?.focus();
    setRefocus(false);
  }, [editing, refocus]);
  const cancel = () => {
    setEditing(false);
    setName(project.name);
    setError(null);
    setRefocus(true);
  };

  async function rename(event: FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      await api.patch(`/v1/console/projects/${project.id}`, { name: name.trim() });
      setEditing(false);
      onRenamed();
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <li className="card project-card">
      {editing ? (
        <form
          className="inline-form"
          onSubmit={rename}
          onKeyDown={(event) => {
            if (event.key === 'Escape') cancel();
          }}
        >
          <label className="field field-grow">
            <span>New name for “{project.name}”</span>
            <input
              required
              maxLength={100}
              value={name}
              // biome-ignore lint/a11y/noAutofocus: the user just asked to edit this field
              autoFocus
              onChange={(event) => setName(event.target.value)}
            />
          </label>
          <button type="submit" className="button button-primary" disabled={!name.trim()}>
            Save
          </button>
          <button type="button" className="button" onClick={cancel}>
            Cancel
          </button>
        </form>
      ) : (
        <div className="project-card-head">
          <h2>
            <Link to={`/projects/${project.id}`} className="project-link">
              {project.name}
            </Link>
          </h2>
          <button
            ref={renameButton}
            type="button"
            className="button button-small button-ghost"
            onClick={() => setEditing(true)}
            aria-label={`Rename ${project.name}`}
          >
            Rename
          </button>
        </div>
      )}
      <ErrorNotice error={error} />
      {project.instance_feedback && (
        <p className="muted small" data-testid="instance-feedback">
          Created by this Debrief instance for feedback about itself: its <code>/skill.md</code>{' '}
          asks agents that use Debrief to report here. You see it because you operate this instance.
        </p>
      )}
      <p className="project-total">
        <strong>{formatCount(counts.total)}</strong>{' '}
        <span className="muted">reports in the last 7 days</span>
      </p>
      <OutcomeStrip counts={counts} />
      <ul className="outcome-legend">
        {OUTCOMES.map((outcome) => (
          <li key={outcome}>
            <span className={`dot dot-${outcome}`} aria-hidden="true" />
            {OUTCOME_LABELS[outcome]} <strong>{formatCount(counts[outcome])}</strong>
          </li>
        ))}
      </ul>
      <p className="muted small">
        Created <RelativeTime iso={project.created_at} />
      </p>
    </li>
  );
}

/** A thin proportional bar of the outcomes; an empty track when nothing arrived. */
function OutcomeStrip({ counts }: { counts: ConsoleProject['last_7_days'] }) {
  return (
    <svg
      className="outcome-strip"
      viewBox="0 0 100 6"
      preserveAspectRatio="none"
      aria-hidden="true"
    >
      <rect className="strip-track" x="0" y="0" width="100" height="6" rx="3" />
      {counts.total > 0 &&
        OUTCOMES.reduce<{ x: number; bars: ReactElement[] }>(
          (acc, outcome) => {
            const width = (counts[outcome] / counts.total) * 100;
            if (width > 0)
              acc.bars.push(
                <rect
                  key={outcome}
                  className={`fill-${outcome}`}
                  x={acc.x}
                  y="0"
                  width={width}
                  height="6"
                />,
              );
            acc.x += width;
            return acc;
          },
          { x: 0, bars: [] },
        ).bars}
    </svg>
  );
}
