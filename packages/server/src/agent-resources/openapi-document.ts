import type { z } from 'zod';
import type { RouteContract, SuccessResponse } from '../http/route-contract.js';
import { HTTP_LAYER_CLIENT_ERRORS, problemResponses } from './openapi-responses.js';
import { ComponentSchemas, type JsonSchema, toJsonSchema } from './openapi-schemas.js';

/** `/v1/dashboard/:projectId/reports` → `/v1/dashboard/{projectId}/reports`. */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function parameters(contract: RouteContract, described: Record<string, string>): JsonSchema[] {
  const sources: [z.ZodObject | undefined, 'path' | 'query'][] = [
    [contract.params, 'path'],
    [contract.query, 'query'],
  ];
  const list: JsonSchema[] = [];
  for (const [source, place] of sources) {
    if (!source) continue;
    const schema = toJsonSchema(source, 'input');
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries((schema.properties ?? {}) as JsonSchema)) {
      // zod's own description of a parameter is its name; the document says what it does.
      const { description: _zodName, ...rest } = property as JsonSchema;
      list.push({
        name,
        in: place,
        required: place === 'path' || required.has(name),
        description: described[name] ?? '',
        schema: rest,
      });
    }
  }
  return list;
}

function successResponse(response: SuccessResponse, components: ComponentSchemas): JsonSchema {
  const content: JsonSchema = {};
  if (response.schema) {
    content['application/json'] = {
      schema: components.schemaOf(response.schema, 'output'),
      ...(response.example !== undefined ? { example: response.example } : {}),
    };
  }
  Object.assign(content, response.media ?? {});
  return {
    description: response.description,
    ...(response.headers ? { headers: response.headers } : {}),
    // A 204 has no body: no content at all rather than an empty map.
    ...(Object.keys(content).length > 0 ? { content } : {}),
  };
}

/** One operation, from the route's schemas and what its `doc` says. */
function operation(base: string, contract: RouteContract, components: ComponentSchemas) {
  const doc = contract.doc;
  if (!doc) return null;
  const responses: JsonSchema = {};
  for (const [status, response] of Object.entries(doc.responses)) {
    responses[status] = successResponse(response, components);
  }
  Object.assign(responses, problemResponses(base, doc.errors));
  if (!Object.keys(responses).some((status) => status.startsWith('4'))) {
    responses['4XX'] = HTTP_LAYER_CLIENT_ERRORS;
  }
  const bodySchema = contract.body ? components.schemaOf(contract.body, 'input') : null;
  return {
    operationId: doc.operationId,
    tags: doc.tags,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    security: doc.security,
    parameters: [...parameters(contract, doc.parameters ?? {}), ...(doc.headers ?? [])],
    ...(bodySchema
      ? {
          requestBody: {
            required: true,
            description:
              'Read as JSON whatever the `Content-Type` says (or when there is none); one JSON object.',
            content: {
              'application/json': {
                schema: bodySchema,
                ...(doc.requestExamples ? { examples: doc.requestExamples } : {}),
              },
              '*/*': { schema: bodySchema },
            },
          },
        }
      : {}),
    responses,
  };
}

/** Every `$ref` reachable from `value`, following the components it names. */
function referencedComponents(value: unknown, schemas: Record<string, JsonSchema>): Set<string> {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    for (const [key, child] of Object.entries(node)) {
      if (key === '$ref' && typeof child === 'string') {
        const name = child.replace('#/components/schemas/', '');
        if (!found.has(name)) {
          found.add(name);
          visit(schemas[name]);
        }
      } else {
        visit(child);
      }
    }
  };
  visit(value);
  return found;
}

function paths(base: string, contracts: readonly RouteContract[], components: ComponentSchemas) {
  const result: Record<string, Record<string, JsonSchema>> = {};
  for (const contract of contracts) {
    const described = operation(base, contract, components);
    if (!described) continue;
    const path = openApiPath(contract.url);
    result[path] = { ...result[path], [contract.method.toLowerCase()]: described };
  }
  return result;
}

/**
 * The OpenAPI 3.1 description of the public API, made from the contracts of the routes the
 * server registered (http/route-contract.ts): the parameters and bodies are the zod schemas the
 * routes parse requests with, the answers the protocol's schemas; each route's `doc` adds its
 * words and examples. Components nothing refers to are left out.
 */
export function buildOpenApiDocument(
  publicUrl: string,
  contracts: readonly RouteContract[],
): JsonSchema {
  const base = publicUrl.replace(/\/+$/, '');
  const components = new ComponentSchemas();
  const published = paths(base, contracts, components);
  const used = referencedComponents(published, components.schemas);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Debrief API',
      version: '1.0.0',
      summary: 'Feedback from AI agents about the tools they use.',
      description: `Agents submit reports with POST /v1/reports and a public ingest key; developers read them with a secret API key. Agent instructions: ${base}/skill.md. Every error is RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\`; each code is explained at ${base}/docs#error-<code>. Timestamps are UTC \`YYYY-MM-DDThh:mm:ssZ\`. An unknown path answers 404 \`not_found\`; an unknown query parameter 400 \`invalid_query\`. Any request may also be answered by the HTTP layer, in the same shape: 400 \`bad_request\` (malformed HTTP), 408 \`request_timeout\` (headers or the whole request not received in time; the connection is closed), 431 \`headers_too_large\`, 429 \`rate_limited\` with \`Retry-After\` (too many connections open from one address), and 503 \`service_unavailable\` with \`Retry-After\` while the server shuts down. The instance URL itself (\`GET /\`) answers \`Accept: application/json\` with a JSON index of these resources.`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: base }],
    tags: [
      { name: 'Reports', description: 'Submitting reports (agents).' },
      { name: 'Read', description: 'Reading reports (developers).' },
      { name: 'Issues', description: 'Reports grouped into the problems behind them; triage.' },
      { name: 'Realtime', description: 'Live report stream.' },
      {
        name: 'Notifications',
        description:
          'Destinations (webhook, Slack, email; admin scope), their deliveries, and muting an issue.',
      },
      { name: 'Agent resources', description: 'Documents published for agents.' },
      { name: 'Health', description: 'Probes.' },
    ],
    paths: published,
    components: {
      schemas: Object.fromEntries(
        Object.entries(components.schemas).filter(([name]) => used.has(name)),
      ),
      securitySchemes: {
        ApiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'wk_sk_…',
          description:
            'Secret API key, `Authorization: Bearer wk_sk_…` (created in the dashboard or with `debrief bootstrap`, shown once). Reads data: never embed it in agents, skills or client code. Scopes: `read` (every key), `triage` (writes to issues and reports) and `admin` (project settings: notification destinations), chosen when the key is created.',
        },
        DashboardSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'debrief_session',
          description:
            'The dashboard session cookie; read endpoints accept it instead of an API key, and triage writes with the `x-csrf-token` header of GET /v1/auth/session.',
        },
      },
    },
  };
}
