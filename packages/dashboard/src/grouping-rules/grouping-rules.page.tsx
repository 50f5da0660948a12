import type { GroupingRule, GroupingRuleList, IssueList } from '@debrief/protocol';
import { type FormEvent, useState } from 'react';
import type { ConsoleProject } from '../api/console.types';
import { useAction } from '../api/use-action';
import { useResource } from '../api/use-resource';
import { IssuePicker } from '../issues/issue-picker';
import { Link } from '../router';
import { useSession } from '../session-context';
import { ErrorNotice, Loading } from '../ui/notice';

/**
 * A project's grouping rules: what the grouper applies before its engine. "Reports whose details
 * match X on tool T go to issue I" and "never join reports of tools A and B".
 */
export function GroupingRulesPage({ project }: { project: ConsoleProject }) {
  const { api } = useSession();
  const path = `/v1/dashboard/${project.id}/grouping-rules`;
  const rules = useResource(path, () => api.get<GroupingRuleList>(path));
  const issuesPath = `/v1/dashboard/${project.id}/issues?status=all&limit=100`;
  const issues = useResource(issuesPath, () => api.get<IssueList>(issuesPath));
  const titles = new Map((issues.data?.issues ?? []).map((issue) => [issue.id, issue.title]));
  const remove = useAction();

  return (
    <div className="stack">
      <section className="card" aria-labelledby="rules-title">
        <h2 id="rules-title" className="card-title">
          Grouping rules
        </h2>
        <p className="muted">
          Applied to each new report before the grouping engine, oldest rule first. A report placed
          by a rule shows <code>rule: its name</code> as the reason it joined its issue. Reports
          grouped earlier stay where they are.
        </p>
        {rules.data ? (
          rules.data.rules.length === 0 ? (
            <p className="muted">No rule yet: the grouping engine decides alone.</p>
          ) : (
            <ul className="similar-list" aria-label="Rules">
              {rules.data.rules.map((rule) => (
                <li key={rule.id} className="similar-item" data-testid="grouping-rule">
                  <div className="similar-text">
                    <strong>{rule.name}</strong>
                    <p className="muted small similar-reason">
                      <RuleText rule={rule} projectId={project.id} titles={titles} />
                    </p>
                  </div>
                  <div className="similar-actions">
                    <button
                      type="button"
                      className="button button-small button-danger-outline"
                      disabled={remove.busy}
                      aria-label={`Delete the rule "${rule.name}"`}
                      onClick={async () => {
                        if (await remove.run(() => api.del(`${path}/${rule.id}`))) rules.reload();
                      }}
                    >
                      Delete
                    </button>
                  </div>
                </li>
              ))}
            </ul>
          )
        ) : rules.error ? (
          <ErrorNotice error={rules.error} onRetry={rules.reload} />
        ) : (
          <Loading />
        )}
        <ErrorNotice error={remove.error} />
      </section>
      <NewRuleCard projectId={project.id} onCreated={rules.reload} />
    </div>
  );
}

function RuleText({
  rule,
  projectId,
  titles,
}: {
  rule: GroupingRule;
  projectId: string;
  titles: Map<string, string>;
}) {
  if (rule.type === 'never_join') {
    const [a, b] = rule.tools ?? [];
    return (
      <>
        Never join reports of <code>{a}</code> and <code>{b}</code>.
      </>
    );
  }
  return (
    <>
      Reports{' '}
      {rule.tool_name ? (
        <>
          of <code>{rule.tool_name}</code>{' '}
        </>
      ) : (
        'of any tool '
      )}
      whose details {rule.pattern_type === 'regex' ? 'match ' : 'contain '}
      <span className="rule-pattern">
        {rule.pattern_type === 'regex' ? `/${rule.pattern}/i` : `“${rule.pattern}”`}
      </span>{' '}
      go to{' '}
      {rule.issue_id ? (
        <Link to={`/projects/${projectId}/issues/${rule.issue_id}`}>
          {titles.get(rule.issue_id) ?? 'this issue'}
        </Link>
      ) : (
        'an issue'
      )}
      .
    </>
  );
}

function NewRuleCard({ projectId, onCreated }: { projectId: string; onCreated(): void }) {
  const { api } = useSession();
  const [type, setType] = useState<GroupingRule['type']>('route');
  const [name, setName] = useState('');
  const [pattern, setPattern] = useState('');
  const [patternType, setPatternType] = useState<'text' | 'regex'>('text');
  const [tool, setTool] = useState('');
  const [issueId, setIssueId] = useState<string | null>(null);
  const [toolA, setToolA] = useState('');
  const [toolB, setToolB] = useState('');
  const create = useAction();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body =
      type === 'route'
        ? {
            type,
            name,
            pattern,
            pattern_type: patternType,
            tool_name: tool.trim() || null,
            issue_id: issueId,
          }
        : { type, name, tools: [toolA, toolB] };
    const ok = await create.run(() => api.post(`/v1/dashboard/${projectId}/grouping-rules`, body));
    if (ok) {
      setName('');
      setPattern('');
      setTool('');
      setToolA('');
      setToolB('');
      onCreated();
    }
  };

  return (
    <section className="card" aria-labelledby="new-rule-title">
      <h2 id="new-rule-title" className="card-title">
        Add a rule
      </h2>
      <form className="rules-form" onSubmit={(event) => void submit(event)}>
        <fieldset className="field-row">
          <legend className="sr-only">Kind of rule</legend>
          <label className="issue-choice">
            <input
              type="radio"
              name="rule-type"
              checked={type === 'route'}
              onChange={() => setType('route')}
            />
            <span>Send matching reports to an issue</span>
          </label>
          <label className="issue-choice">
            <input
              type="radio"
              name="rule-type"
              checked={type === 'never_join'}
              onChange={() => setType('never_join')}
            />
            <span>Never join two tools</span>
          </label>
        </fieldset>
        <label className="field">
          <span>Name</span>
          <input required value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        {type === 'route' ? (
          <>
            <div className="field-row">
              <label className="field">
                <span>Details contain</span>
                <input
                  required
                  maxLength={200}
                  value={pattern}
                  onChange={(event) => setPattern(event.target.value)}
                />
              </label>
              <label className="field">
                <span>Read as</span>
                <select
                  value={patternType}
                  onChange={(event) => setPatternType(event.target.value as 'text' | 'regex')}
                >
                  <option value="text">text (ignoring case)</option>
                  <option value="regex">regular expression</option>
                </select>
              </label>
              <label className="field">
                <span>Tool (empty: any)</span>
                <input value={tool} onChange={(event) => setTool(event.target.value)} />
              </label>
            </div>
            <IssuePicker projectId={projectId} exclude="" value={issueId} onChange={setIssueId} />
          </>
        ) : (
          <div className="field-row">
            <label className="field">
              <span>Tool A</span>
              <input required value={toolA} onChange={(event) => setToolA(event.target.value)} />
            </label>
            <label className="field">
              <span>Tool B</span>
              <input required value={toolB} onChange={(event) => setToolB(event.target.value)} />
            </label>
          </div>
        )}
        <div>
          <button
            type="submit"
            className="button button-primary"
            disabled={create.busy || (type === 'route' && !issueId)}
          >
            Add rule
          </button>
        </div>
        <ErrorNotice error={create.error} />
      </form>
    </section>
  );
}
