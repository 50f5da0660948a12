import type { ErrorCode } from '@debrief/protocol';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preHandlerAsyncHookHandler,
} from 'fastify';
import type { z } from 'zod';
import type { AppContext } from '../context.js';
import { parseBody } from './body.js';
import { parseQuery } from './query.js';

/** A JSON Schema object as it appears in the OpenAPI document. */
export type JsonSchema = Record<string, unknown>;

/** A success answer of a documented operation. */
export interface SuccessResponse {
  description: string;
  /** The JSON body, served as `application/json`; a named component when it is one. */
  schema?: z.ZodType;
  example?: unknown;
  /** Bodies of other media types, by type (text documents, event streams). */
  media?: Record<string, { schema: JsonSchema; example?: unknown }>;
  headers?: Record<string, JsonSchema>;
}

/** What the OpenAPI document says about a route beyond its schemas. */
export interface OperationDoc {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  security: Record<string, string[]>[];
  /** Descriptions of the path and query parameters, by name. */
  parameters?: Record<string, string>;
  /** Request headers the route reads (OpenAPI parameter objects). */
  headers?: JsonSchema[];
  requestExamples?: Record<string, { summary: string; value: unknown }>;
  /** The 2xx answers, by status. */
  responses: Record<string, SuccessResponse>;
  /** Every error code the route answers, documented as problem details grouped by status. */
  errors: readonly ErrorCode[];
}

/**
 * A route's whole contract: the schemas its requests are parsed with are the ones
 * /openapi.json publishes. Path parameters are documented and typed, not validated: an id of
 * the wrong shape is a 404 like an unknown one, decided by the service.
 */
export interface RouteContract {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Fastify's form: `/v1/dashboard/:projectId/reports`. */
  url: string;
  params?: z.ZodObject;
  /** Parsed with `parseQuery`: an unknown or repeated parameter is a 400 `invalid_query`. */
  query?: z.ZodObject;
  /** Parsed with `parseBody`: one JSON object whatever the Content-Type, then the schema. */
  body?: z.ZodType;
  /** Present on the public API; the dashboard's own routes are not published. */
  doc?: OperationDoc;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler receives: the parsed request and the context its services read through. */
export interface RouteCall<C extends RouteContract> {
  request: FastifyRequest;
  reply: FastifyReply;
  /**
   * The request's context: for a GET, reads through it stop when the client goes away
   * (http/read-cancellation.ts). A handler names this `ctx` in its parameters, which hides the
   * app's context its register function was given.
   */
  ctx: AppContext;
  params: C['params'] extends z.ZodObject ? z.output<C['params']> : Record<string, string>;
  query: Parsed<C['query']>;
  body: Parsed<C['body']>;
}

export interface RouteDefinition<C extends RouteContract> {
  contract: C;
  /** Who may call it (requireReader, requireSession, …), made from the app's context. */
  auth?: (ctx: AppContext) => preHandlerAsyncHookHandler;
  handler: (call: RouteCall<C>) => unknown;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The contract of every route registered with `registerRoute`, in order: /openapi.json's source. */
    routeContracts: RouteContract[];
  }
}

/** Marks, in a route's config, that `registerRoute` made it. */
const REGISTERED = Symbol('registerRoute');

/**
 * Starts the record of contracts, and refuses at start a GET route registered any other way:
 * its handler could read through the app's context, whose reads run on after the client left.
 */
export function registerRouteContracts(app: FastifyInstance): void {
  app.decorate('routeContracts', []);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const config = route.config as Record<symbol, unknown> | undefined;
    if (methods.includes('GET') && config?.[REGISTERED] !== true) {
      throw new Error(
        `GET ${route.url} must be registered with registerRoute (http/route-contract.ts), so that its reads stop when the client leaves`,
      );
    }
  });
}

/**
 * Registers a route and records its contract. The query and the body are parsed after `auth`,
 * so an unauthenticated caller learns that first, whatever else is wrong.
 */
export function registerRoute<C extends RouteContract>(
  app: FastifyInstance,
  ctx: AppContext,
  definition: RouteDefinition<C>,
): void {
  const { contract } = definition;
  app.routeContracts.push(contract);
  app.route({
    method: contract.method,
    url: contract.url,
    config: { [REGISTERED]: true },
    ...(definition.auth ? { preHandler: definition.auth(ctx) } : {}),
    handler: async (request, reply) =>
      definition.handler({
        request,
        reply,
        ctx: request.ctx,
        params: request.params as RouteCall<C>['params'],
        query: (contract.query
          ? parseQuery(contract.query, request.query)
          : undefined) as RouteCall<C>['query'],
        body: (contract.body
          ? parseBody(contract.body, request.body)
          : undefined) as RouteCall<C>['body'],
      }),
  });
}

/**
 * Records the contract of the one route registered by hand: POST /v1/reports keeps its own hot
 * path (the fast-path validator, then the schema for the messages), so its `body` documents.
 */
export function documentRoute(app: FastifyInstance, contract: RouteContract): void {
  app.routeContracts.push(contract);
}
