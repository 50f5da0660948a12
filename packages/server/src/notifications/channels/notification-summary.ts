import type { NotificationPayload } from '@debrief/protocol';

/**
 * What a human-facing message (Slack, email) says about one notification, read from its payload
 * once so both channels tell the same story. Texts are raw here; each channel escapes them for
 * its own format.
 */
export interface NotificationSummary {
  /** One line: what happened, to which issue or project. */
  headline: string;
  /** The report's or issue's details, cut to `DETAILS_MAX` characters. */
  details: string | null;
  fields: { label: string; value: string }[];
  /** Extra lines (a digest's lists, a batch of reports, a quota's numbers). */
  lines: string[];
  link: { url: string; label: string };
}

export const DETAILS_MAX = 1000;

type Loose = Record<string, unknown>;

function str(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function issueTitle(issue: Loose | undefined): string {
  return str(issue?.title) ?? 'an issue';
}

function issueLine(issue: Loose): string {
  const count = num(issue.report_count) ?? num(issue.count);
  return `${str(issue.title) ?? str(issue.id) ?? 'issue'}${count === null ? '' : ` (${count})`}`;
}

function listOf(value: unknown): Loose[] {
  return Array.isArray(value) ? value.filter((v): v is Loose => typeof v === 'object' && !!v) : [];
}

function percent(value: unknown): string {
  const n = num(value);
  return n === null ? '–' : `${Math.round(n * 1000) / 10} %`;
}

export function summarizeNotification(payload: NotificationPayload): NotificationSummary {
  const data = payload.data as Loose & NotificationPayload['data'];
  const project = data.project;
  const issue = data.issue as Loose | undefined;
  const report = data.report as Loose | undefined;
  const fields: NotificationSummary['fields'] = [];
  const lines: string[] = [];
  const outcome = str(report?.outcome) ?? str(issue?.outcome);
  const tool = str(report?.tool_name) ?? str(issue?.tool_name);
  if (outcome) fields.push({ label: 'Outcome', value: outcome });
  fields.push({ label: 'Tool', value: tool ?? '—' });
  const count = num(data.count) ?? num(issue?.report_count);
  if (count !== null) fields.push({ label: 'Count', value: String(count) });
  const rawDetails = str(report?.details) ?? str(issue?.sample_details);
  const details = rawDetails === null ? null : truncate(rawDetails, DETAILS_MAX);
  const link = issue
    ? { url: String(issue.url), label: 'Open the issue' }
    : { url: project.url, label: 'Open the project' };
  const name = project.name;
  let headline: string;
  switch (payload.type) {
    case 'issue.created':
      headline = `New issue in ${name}: ${issueTitle(issue)}`;
      break;
    case 'issue.regressed':
      headline = `Regressed in ${name}: ${issueTitle(issue)}`;
      break;
    case 'issue.spiking': {
      const hour = num(data.last_hour);
      headline = `Spiking in ${name}: ${issueTitle(issue)}`;
      if (hour !== null) {
        const baseline = num(data.hourly_average);
        lines.push(
          `${hour} reports in the last hour${baseline === null ? '' : `, against ${Math.round(baseline * 10) / 10} an hour over the last 7 days`}.`,
        );
      }
      break;
    }
    case 'report.created': {
      const n = num(data.count) ?? 1;
      headline =
        n === 1
          ? `New ${outcome ?? ''} report in ${name}`.replace('  ', ' ')
          : `${n} new reports in ${name}`;
      for (const r of listOf(data.reports).slice(1))
        lines.push(
          `${str(r.outcome) ?? ''} ${str(r.tool_name) ?? ''}: ${truncate(str(r.details) ?? '', 200)}`.trim(),
        );
      if (n > 1 && report) link.url = project.url;
      break;
    }
    case 'quota.warning':
    case 'quota.reached': {
      const used = num(data.used);
      const quota = num(data.quota);
      headline =
        payload.type === 'quota.warning'
          ? `${name}'s account has used 80 % of its monthly reports`
          : `${name}'s account reached its monthly report quota; new reports are refused`;
      if (used !== null && quota !== null)
        lines.push(`${used} of ${quota} reports this month (${str(data.month) ?? 'UTC'}).`);
      break;
    }
    case 'ingest.throttled': {
      const reason = str(data.reason) ?? 'a limit';
      headline = `Reports to ${name} are being refused (${reason})`;
      const who = str(data.address) ?? str(data.key_prefix);
      if (who) lines.push(`From ${who}.`);
      break;
    }
    case 'digest.daily': {
      headline = `Daily digest for ${name} (${str(data.day) ?? 'yesterday'})`;
      const sections: [string, unknown][] = [
        ['New issues', data.new_issues],
        ['Regressed issues', data.regressed_issues],
        ['Busiest issues', data.busiest_issues],
      ];
      for (const [title, list] of sections) {
        const items = listOf(list);
        lines.push(`${title}: ${items.length === 0 ? 'none' : ''}`.trim());
        for (const item of items) lines.push(`• ${issueLine(item)}`);
      }
      const rates = (data.outcome_rates ?? {}) as Loose;
      const before = (data.outcome_rates_before ?? {}) as Loose;
      const keys = Object.keys(rates);
      if (keys.length > 0)
        lines.push(
          `Outcome rates (the day before): ${keys.map((k) => `${k} ${percent(rates[k])} (${percent(before[k])})`).join(', ')}`,
        );
      break;
    }
    default:
      headline = `${payload.type} in ${name}`;
  }
  return { headline, details, fields, lines, link };
}
