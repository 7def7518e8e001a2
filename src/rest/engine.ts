/**
 * Serves the declared REST routes: match the path, validate parameters, compile `fields`,
 * run the route's GraphQL document in-process on the gateway's own schema (same context,
 * loaders and error masking as /graphql), then reshape and answer with caching headers.
 * No route touches the database itself.
 */
import type { DocumentNode, ExecutionResult, GraphQLError } from 'graphql';
import type { YogaServerInstance } from 'graphql-yoga';
import { CACHE_CONTROL } from '../cache/cache-control.ts';
import { entityTag, matchesEntityTag } from '../cache/etag.ts';
import { ERROR_STATUS, type ErrorCode, type ErrorDetail } from '../errors.ts';
import { refuseAccess, type Caller } from '../auth/caller.ts';
import type { RequestContext } from '../context.ts';
import { buildDocument, DocumentCache } from './document.ts';
import { FieldsSyntaxError, parseFields } from './fields.ts';
import { Response } from '@whatwg-node/fetch';
import { bufferedResponse, errorResponse, JSON_CONTENT_TYPE } from '../responses.ts';
import { publicUrl } from './paging.ts';
import { ParamError, readParams, type ParamValues } from './params.ts';
import {
  choiceKey,
  choose,
  reshape,
  responseKeys,
  selectedPaths,
  UnknownFieldError,
  valueAt,
  type GraphqlObject,
} from './resources.ts';
import type { RestRoute } from './route.ts';

export interface RestRequest {
  request: Request;
  url: URL;
  /** Scheme, host and path prefix the client reached the service under, for links. */
  publicBase: string;
  requestId: string;
  caller: Caller;
}

interface CompiledRoute {
  route: RestRoute;
  pattern: RegExp;
  names: string[];
}

function compile(route: RestRoute): CompiledRoute {
  const names: string[] = [];
  const source = route.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}/?$`), names };
}

/** The status a GraphQL error maps to on this route (docs/api.md, "Errors"). */
function statusOf(error: GraphQLError, route: RestRoute): number {
  const code = error.extensions?.code as ErrorCode | undefined;
  const details = (error.extensions?.details ?? []) as ErrorDetail[];
  if (details.some((detail) => detail.reason === 'unknown')) return route.unknownNameStatus;
  return (code && ERROR_STATUS[code]) || 500;
}

/** The REST name of the parameter a GraphQL argument came from. */
function restParameter(route: RestRoute, argument: string, params: ParamValues): string {
  const name = route.parameterOf?.[argument];
  return typeof name === 'function' ? name(params) : (name ?? argument);
}

/**
 * What a request with these (valid) parameters asks of GraphQL: the REST fields chosen, the
 * route's plan (document shape and variables), and the document, built on demand, with the
 * key it is cached under. The benchmark sends the same document to /graphql (W5).
 */
export function restOperation(route: RestRoute, params: ParamValues) {
  const fields = typeof params.fields === 'string' ? parseFields(params.fields) : undefined;
  const chosen = choose(route.resource, fields);
  const plan = route.plan(params);
  return {
    chosen,
    plan,
    documentKey: `${route.id}:${plan.shapeKey}:${choiceKey(chosen)}`,
    buildDocument: () => buildDocument(plan.shape, selectedPaths(chosen)),
  };
}

export class RestEngine {
  readonly routes: readonly RestRoute[];
  private readonly compiled: CompiledRoute[];
  private readonly documents: DocumentCache;

  constructor(
    private readonly yoga: YogaServerInstance<Record<string, unknown>, RequestContext>,
    routes: readonly RestRoute[],
  ) {
    this.routes = routes;
    this.compiled = routes.map(compile);
    this.documents = new DocumentCache(yoga.getEnveloped().schema);
  }

  /** The route answering this path and the values of its placeholders, or undefined. */
  match(pathname: string): { route: RestRoute; pathParams: Record<string, string> } | undefined {
    for (const { route, pattern, names } of this.compiled) {
      const found = pattern.exec(pathname);
      if (!found) continue;
      const pathParams: Record<string, string> = {};
      names.forEach((name, index) => {
        pathParams[name] = found[index + 1]!;
      });
      return { route, pathParams };
    }
    return undefined;
  }

  async handle(
    rest: RestRequest,
    route: RestRoute,
    pathParams: Record<string, string>,
  ): Promise<Response> {
    const headers: Record<string, string> = route.apiVersion
      ? { 'api-version': route.apiVersion }
      : {};
    const fail = (status: number, message: string, details: ErrorDetail[] = []) =>
      errorResponse(status, message, rest.requestId, { details, headers });
    try {
      // Before the parameters are validated, so an unauthenticated caller learns that first.
      // An empty ref is left to parameter validation (400), like an absent one.
      const ref = rest.url.searchParams.get('ref') || undefined;
      const target = { ref, shopId: pathParams.shopId };
      const denied = refuseAccess(route.access, rest.caller, target, rest.requestId);
      if (denied) {
        for (const [name, value] of Object.entries(headers)) denied.headers.set(name, value);
        return denied;
      }
      const params = readParams(route.params, rest.url.searchParams, pathParams);
      if (route.params.some((p) => p.replacedBy !== undefined && params[p.name] !== undefined)) {
        headers.deprecation = 'true';
      }

      const { chosen, plan, documentKey, buildDocument } = restOperation(route, params);
      const document = this.documents.get(documentKey, buildDocument);

      const result = await this.execute(rest, document, plan.variables);
      if (result.errors?.length) {
        const [worst] = [...result.errors].sort((a, b) => statusOf(b, route) - statusOf(a, route));
        const status = statusOf(worst!, route);
        const details = ((worst!.extensions?.details ?? []) as ErrorDetail[]).map((detail) => ({
          ...detail,
          parameter: restParameter(route, detail.parameter, params),
        }));
        return fail(status, status === 500 ? 'internal error' : worst!.message, details);
      }

      const rootKey = responseKeys(plan.shape.root)[0]!;
      const root = ((result.data ?? {}) as GraphqlObject)[rootKey] as GraphqlObject | null;
      const found = plan.shape.items === '' ? root : valueAt(root, responseKeys(plan.shape.items));
      const elements = (Array.isArray(found) ? found : found ? [found] : []) as GraphqlObject[];
      const response = route.respond({
        params,
        root,
        items: elements.map((element) => reshape(chosen, element)),
        url: publicUrl(rest.publicBase, rest.url, params),
      });
      if (response.status === 404) return fail(404, response.message);
      return this.cacheable(rest.request, route, response.body, headers);
    } catch (error) {
      if (error instanceof ParamError) return fail(400, error.message, error.details);
      if (error instanceof FieldsSyntaxError) {
        return fail(400, error.message, [{ parameter: 'fields', reason: error.reason }]);
      }
      if (error instanceof UnknownFieldError) {
        return fail(route.unknownNameStatus, error.message, [
          { parameter: 'fields', reason: 'unknown' },
        ]);
      }
      throw error;
    }
  }

  private async execute(
    { request, publicBase }: RestRequest,
    document: DocumentNode,
    variableValues: Record<string, unknown>,
  ): Promise<ExecutionResult> {
    const { execute, contextFactory, schema } = this.yoga.getEnveloped({
      request,
      publicBase,
      params: { query: '', variables: variableValues, operationName: 'Rest' },
    });
    const contextValue = await contextFactory();
    return (await execute({
      schema,
      document,
      variableValues,
      contextValue,
      operationName: 'Rest',
    })) as ExecutionResult;
  }

  private cacheable(
    request: Request,
    route: RestRoute,
    body: unknown,
    headers: Record<string, string>,
  ): Response {
    const bytes = Buffer.from(JSON.stringify(body));
    const tag = entityTag(bytes);
    // Data routes may be cached briefly by clients and shared caches (partner answers: privately).
    const cacheHeaders = {
      ...headers,
      etag: tag,
      'cache-control': route.access === 'public' ? CACHE_CONTROL.public : CACHE_CONTROL.private,
      vary: 'Authorization',
    };
    if (matchesEntityTag(request.headers.get('if-none-match'), tag)) {
      return new Response(null, { status: 304, headers: cacheHeaders });
    }
    return bufferedResponse(200, bytes, { 'content-type': JSON_CONTENT_TYPE, ...cacheHeaders });
  }
}
