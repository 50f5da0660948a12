/**
 * The options of the two add-ons that change what Debrief learns, as a table under each
 * snippet. Written out here rather than fetched: they are the packages' documented options,
 * and the page must not pull the packages (and zod) into the dashboard bundle.
 */
interface OptionRow {
  name: string;
  fallback: string;
  meaning: string;
}

export const MCP_OPTIONS: OptionRow[] = [
  {
    name: 'capture',
    fallback: 'false',
    meaning:
      'Reports your tools that throw or answer isError as failure reports, with the tool, the error text and the agent client. The same failure is sent once per 10 minutes, at most 10 a minute; never delays the tool.',
  },
  {
    name: 'countCalls',
    fallback: 'true',
    meaning:
      'Counts calls and errors per tool, sent every minute and when the server closes, so the Tools table shows error rates and reports per 1,000 calls.',
  },
  {
    name: 'source',
    fallback: 'server name',
    meaning: 'The source of the reports.',
  },
  {
    name: 'toolName',
    fallback: 'report_feedback',
    meaning: 'Name of the feedback tool.',
  },
];

export const EXPRESS_OPTIONS: OptionRow[] = [
  {
    name: 'capture',
    fallback: 'false',
    meaning:
      'Reports your routes’ 5xx answers as failure reports (route, status, the start of the body), deduplicated and rate-limited.',
  },
  {
    name: 'countRequests',
    fallback: 'true',
    meaning:
      'Counts requests and 5xx answers per route (GET /users/:id), sent every minute and at close().',
  },
  {
    name: 'forwardingSecret',
    fallback: 'none',
    meaning:
      'The project’s forwarding secret: each report carries the agent’s address, so rate limits apply per agent, not to your whole app.',
  },
  {
    name: 'path',
    fallback: '/feedback',
    meaning: 'Where the route answers, relative to the mount.',
  },
  {
    name: 'serverVersion',
    fallback: 'none',
    meaning: 'Your app’s version, sent with the counts to compare releases.',
  },
];

export function OptionsTable({ label, rows }: { label: string; rows: OptionRow[] }) {
  return (
    <div className="table-scroll">
      <table className="table options-table" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Option</th>
            <th scope="col">Default</th>
            <th scope="col">What it does</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.name}>
              <th scope="row">
                <code>{row.name}</code>
              </th>
              <td>
                <code>{row.fallback}</code>
              </td>
              <td>{row.meaning}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
