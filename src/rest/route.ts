/**
 * The declaration of a REST route: everything about it is data here (path, parameters,
 * resource, the GraphQL operation it runs, the envelope it answers with), so the engine,
 * the OpenAPI document and the tests all read the same declaration.
 */
import type { Access } from '../auth/caller.ts';
import type { OperationShape } from './document.ts';
import type { ParamSpec, ParamValues } from './params.ts';
import type { GraphqlObject, Resource } from './resources.ts';

export interface OperationPlan {
  shape: OperationShape;
  /** Distinguishes shapes within a route (the document cache key). */
  shapeKey: string;
  variables: Record<string, unknown>;
}

export interface ResponseInput {
  params: ParamValues;
  /** The root field's value (e.g. the products connection, or the product). */
  root: GraphqlObject | null;
  /** The reshaped REST items. */
  items: Record<string, unknown>[];
  /** The request URL on the public base (src/proxy-trust.ts), for paging links. */
  url: URL;
}

export type RouteResponse = { status: 200; body: unknown } | { status: 404; message: string };

export interface RestRoute {
  /** Stable name: OpenAPI operationId and document cache key. */
  id: string;
  method: 'GET';
  /** Path with `{name}` placeholders. */
  path: string;
  summary: string;
  description: string;
  tag: 'Partner search' | 'Suggestions' | 'Categories' | 'Products' | 'Generic resources';
  /** `partner`: a Bearer token and a `ref` it owns are required; the engine enforces it. */
  access: Access;
  params: ParamSpec[];
  /** The resource of each item; `fields` selects from it. */
  resource: Resource;
  /** Status for a name `fields` does not know or a filter naming nothing (docs/api.md, "Errors"). */
  unknownNameStatus: 400 | 422;
  /**
   * The REST parameter behind a GraphQL argument, for error details (`query` → `product`);
   * a function where it depends on which of two synonyms the request used.
   */
  parameterOf?: Record<string, string | ((params: ParamValues) => string)>;
  /** Answers carry `API-Version` (partner search is versioned: docs/api.md, "Versions"). */
  apiVersion?: string;
  plan(params: ParamValues): OperationPlan;
  respond(input: ResponseInput): RouteResponse;
  /** JSON Schema of the whole response body, given the item schema. */
  responseSchema(item: Record<string, unknown>): Record<string, unknown>;
}
