import {
  DEFAULT_PAGE_LIMIT,
  OUTCOME_MEANINGS,
  OUTCOMES,
  type ServiceIndex,
} from '@debrief/protocol';

/**
 * RFC 8288 `Link` header of `/`, so that an agent given only the instance URL finds the rest
 * without running the app: RFC 8631 `service-desc` (machine-readable description) and
 * `service-doc` (documentation for people), the agent instructions, and the llms.txt index,
 * which is also what `/` answers to `Accept: text/markdown`. Relative targets resolve against
 * the URL the client used, which stays right even when PUBLIC_URL is not set.
 */
export const FRONT_DOOR_LINK = [
  '</openapi.json>; rel="service-desc"; type="application/json"',
  '</docs>; rel="service-doc"; type="text/html"',
  '</skill.md>; rel="describedby"; type="text/markdown"',
  '</llms.txt>; rel="alternate"; type="text/plain"',
].join(', ');

/** What `/` answers to `Accept: application/json`: the resources and the five outcomes. */
export function renderServiceIndex(publicUrl: string): ServiceIndex {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    name: 'Debrief',
    description:
      'Debrief collects short feedback reports from AI agents about the tools they use, so tool developers can fix what goes wrong. Read skill first: it says when and how to send a report.',
    resources: [
      {
        name: 'skill',
        url: `${base}/skill.md`,
        type: 'text/markdown',
        description:
          'Instructions for agents: when and how to send a report, the exact request, every error and how to fix it.',
      },
      {
        name: 'llms',
        url: `${base}/llms.txt`,
        type: 'text/plain',
        description: 'Index of these resources in the llms.txt format.',
      },
      {
        name: 'openapi',
        url: `${base}/openapi.json`,
        type: 'application/json',
        description: 'OpenAPI 3.1 description of every public endpoint.',
      },
      {
        name: 'docs',
        url: `${base}/docs`,
        type: 'text/html',
        description: 'API reference, with an anchor per error code (#error-<code>).',
      },
      {
        name: 'submit_report',
        url: `${base}/v1/reports`,
        type: 'application/json',
        description:
          'POST {"ingest_key", "outcome", "details", "tool_name"?, "source"?} here; the ingest key comes with the tool you report about.',
      },
      {
        name: 'read_api',
        url: `${base}/v1/projects`,
        type: 'application/json',
        description: `Read API for developers (Authorization: Bearer wk_sk_…): projects, then GET /v1/dashboard/{projectId}/reports, ${DEFAULT_PAGE_LIMIT} reports a page by default.`,
      },
      {
        name: 'dashboard',
        url: `${base}/`,
        type: 'text/html',
        description: 'The web dashboard where developers read reports live (needs a browser).',
      },
    ],
    outcomes: OUTCOMES.map((value) => ({ value, description: OUTCOME_MEANINGS[value] })),
  };
}
