import type { ReactNode } from 'react';
import type { ConsoleProject } from '../api/console.types';
import { useResource } from '../api/use-resource';
import { Link } from '../router';
import { useSession } from '../session-context';
import { ErrorNotice, Loading } from '../ui/notice';
import { useTitle } from '../ui/use-title';

const TABS = [
  { id: 'issues', label: 'Issues', suffix: '' },
  { id: 'reports', label: 'Reports', suffix: '/reports' },
  { id: 'rules', label: 'Grouping rules', suffix: '/rules' },
  { id: 'integrate', label: 'Integrate', suffix: '/integrate' },
  { id: 'keys', label: 'Keys', suffix: '/keys' },
  { id: 'notifications', label: 'Notifications', suffix: '/notifications' },
] as const;

/** The project's title and tabs around each project page. */
export function ProjectLayout({
  projectId,
  tab,
  children,
}: {
  projectId: string;
  tab: string;
  children(project: ConsoleProject): ReactNode;
}) {
  const { api } = useSession();
  const projects = useResource('projects', () => api.get<ConsoleProject[]>('/v1/console/projects'));
  const project = projects.data?.find((candidate) => candidate.id === projectId);
  const missing = projects.data !== undefined && !project;
  useTitle(
    ...(missing
      ? ['Project not found']
      : [TABS.find((item) => item.id === tab)?.label ?? 'Issues', project?.name ?? 'Project']),
  );
  if (!projects.data) {
    return projects.error ? (
      <ErrorNotice error={projects.error} onRetry={projects.reload} />
    ) : (
      <Loading />
    );
  }
  if (!project) {
    return (
      <section className="empty">
        <h1>Project not found</h1>
        <p>
          It does not exist or belongs to another account. <Link to="/">Back to your projects</Link>
        </p>
      </section>
    );
  }
  return (
    <>
      <div className="project-head">
        <nav aria-label="Breadcrumb" className="breadcrumb">
          <Link to="/">Projects</Link>
          <span aria-hidden="true">/</span>
        </nav>
        <h1 className="project-title">{project.name}</h1>
        <nav className="tabs" aria-label="Project">
          {TABS.map((item) => (
            <Link
              key={item.id}
              to={`/projects/${project.id}${item.suffix}`}
              className="tab"
              aria-current={item.id === tab ? 'page' : undefined}
            >
              {item.label}
            </Link>
          ))}
        </nav>
      </div>
      {children(project)}
    </>
  );
}
