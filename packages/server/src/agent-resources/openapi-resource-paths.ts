import { problemResponses, ref, textResponse } from './openapi-responses.js';
import type { JsonSchema } from './openapi-schemas.js';
import { renderServiceIndex } from './service-index.js';

/** The paths of the probes and of the documents published for agents, `/` included. */
export function resourcePaths(base: string): Record<string, JsonSchema> {
  return {
    '/': {
      get: {
        operationId: 'frontDoor',
        tags: ['Agent resources'],
        summary: 'The front door: the dashboard for browsers, an index for agents',
        description:
          'What this URL answers depends on `Accept`: `text/html` (and `*/*`) the dashboard app, whose HTML also lists these resources in a `<noscript>` block; `application/json` a JSON index of the resources and the five outcomes (schema ServiceIndex); `text/markdown` or `text/plain` the llms.txt index. Every answer carries `Vary: Accept` and a `Link` header (RFC 8288) with `rel="service-desc"` → /openapi.json and `rel="service-doc"` → /docs (RFC 8631), `rel="describedby"` → /skill.md and `rel="alternate"` → /llms.txt.',
        security: [],
        responses: {
          '200': {
            description: 'The representation `Accept` asked for.',
            headers: {
              Link: {
                description:
                  'The agent resources: service-desc, service-doc, describedby, alternate.',
                schema: { type: 'string' },
              },
              Vary: { description: '`Accept`.', schema: { type: 'string' } },
            },
            content: {
              'application/json': {
                schema: ref('ServiceIndex'),
                example: renderServiceIndex(base),
              },
              'text/markdown': { schema: { type: 'string' }, example: '# Debrief\n…' },
              'text/plain': { schema: { type: 'string' }, example: '# Debrief\n…' },
              'text/html': { schema: { type: 'string' }, example: '<!doctype html>…' },
            },
          },
        },
      },
    },
    '/healthz': {
      get: {
        operationId: 'health',
        tags: ['Health'],
        summary: 'Liveness: the process answers',
        security: [],
        responses: {
          '200': {
            description: 'Up.',
            content: {
              'application/json': { schema: ref('HealthResponse'), example: { ok: true } },
            },
          },
        },
      },
    },
    '/readyz': {
      get: {
        operationId: 'ready',
        tags: ['Health'],
        summary: 'Readiness: the database answers and reports can be stored',
        security: [],
        responses: {
          '200': {
            description: 'Ready to store reports.',
            content: {
              'application/json': {
                schema: ref('ReadyResponse'),
                example: { ok: true, database: 'sqlite' },
              },
            },
          },
          ...problemResponses(base, ['service_unavailable']),
        },
      },
    },
    '/skill.md': {
      get: {
        operationId: 'skill',
        tags: ['Agent resources'],
        summary: 'Instructions for agents (SKILL.md)',
        description:
          'When and how to report, the exact request, errors and fixes, and a feedback block about Debrief itself.',
        security: [],
        responses: textResponse(
          'text/markdown',
          'Markdown for agents.',
          '# Debrief: tell tool developers how their tools worked for you\n…',
        ),
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        tags: ['Agent resources'],
        summary: 'This OpenAPI document',
        security: [],
        responses: {
          '200': {
            description: 'OpenAPI 3.1.',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
    '/docs': {
      get: {
        operationId: 'docs',
        tags: ['Agent resources'],
        summary: 'API reference (HTML), with an anchor per error code (`#error-<code>`)',
        security: [],
        responses: textResponse('text/html', 'A self-contained HTML page.', '<!doctype html>…'),
      },
    },
    '/llms.txt': {
      get: {
        operationId: 'llms',
        tags: ['Agent resources'],
        summary: 'Index of the agent resources (llms.txt)',
        security: [],
        responses: textResponse('text/plain', 'Markdown-formatted index.', '# Debrief\n…'),
      },
    },
  };
}
