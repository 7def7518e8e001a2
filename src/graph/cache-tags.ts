/**
 * Records what an answer depends on (src/cache/answer-tags.ts) where the data enters the
 * graph: an object type declares the tag of its parent value once (`extensions:
 * cacheTags(...)` on the type), and every field of the type records it when it resolves, so
 * a field added later records it too. A field can declare its own (a list's market, a shop's
 * offers). Nothing is recorded unless the response cache is storing this answer.
 */
import SchemaBuilder, {
  BasePlugin,
  type PothosOutputFieldConfig,
  type SchemaTypes,
} from '@pothos/core';
import type { GraphQLFieldResolver, GraphQLObjectType } from 'graphql';
import { tagsBeingCollected } from '../cache/answer-tags.ts';

const EXTENSION = 'cacheTags';

// Arguments are whatever the field declares: the declaring file types its own function.
type TagOf = (parent: any, args: any) => string | undefined;

/** The extension declaring the tag of a type's parent value, or of a field's answer. */
export function cacheTags<Parent, Args = Record<string, unknown>>(
  tagOf: (parent: Parent, args: Args) => string | undefined,
): { [EXTENSION]: TagOf } {
  return { [EXTENSION]: tagOf };
}

function declaredTag(extensions: Readonly<Record<string, unknown>> | null | undefined) {
  return extensions?.[EXTENSION] as TagOf | undefined;
}

/**
 * Records the tag `type` declares for `parent`, as its fields do when they resolve: for a
 * value whose field is answered without its resolver (src/graph/compile/compiled-values.ts).
 */
export function recordTypeTag(
  type: GraphQLObjectType,
  parent: unknown,
  args: object,
  context: unknown,
): void {
  const tagOf = declaredTag(type.extensions);
  const tags = tagOf && tagsBeingCollected(context);
  const tag = tags && tagOf(parent, args);
  if (tag !== undefined) tags!.add(tag);
}

class CacheTagsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    const ofType = declaredTag(this.buildCache.getTypeConfig(fieldConfig.parentType).extensions);
    const ofField = declaredTag(fieldConfig.extensions);
    if (ofType === undefined && ofField === undefined) return resolver;
    return (parent, args, context, info) => {
      const tags = tagsBeingCollected(context);
      if (tags !== undefined) {
        const typeTag = ofType?.(parent, args);
        if (typeTag !== undefined) tags.add(typeTag);
        const fieldTag = ofField?.(parent, args);
        if (fieldTag !== undefined) tags.add(fieldTag);
      }
      return resolver(parent, args, context, info);
    };
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      cacheTags: CacheTagsPlugin<Types>;
    }
  }
}

const pluginName = 'cacheTags';
SchemaBuilder.registerPlugin(pluginName, CacheTagsPlugin);
export default pluginName;
