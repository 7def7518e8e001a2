/**
 * The schemas of the REST routes' items, from their resources (resources.ts).
 *
 * Component names: every resource reached from a route becomes `components.schemas[name]`
 * when all the resources declared under that name have the same shape. Some names are shared
 * by different shapes (`Money` with and without `includingShipping`; `Property` and
 * `CoreProperty`, whose trees are declared level by level, each level one shallower): those
 * are inlined where they are used, with their name as `title`, rather than given a component
 * that would describe only one of them.
 */
import { schemaRef, type JsonSchema } from '../../openapi/vocabulary.ts';
import type { Resource, RestField } from '../resources.ts';

const ON_REQUEST = 'Returned only when named in `fields`.';

function withDescription(schema: JsonSchema, description: string): JsonSchema {
  return description === '' ? schema : { ...schema, description };
}

function fieldDescription(field: RestField): string {
  return field.standard ? field.description : `${field.description} ${ON_REQUEST}`.trim();
}

function subResource(field: RestField): Resource | undefined {
  return field.kind === 'object' ? field.fields : field.kind === 'list' ? field.item : undefined;
}

/**
 * Builds the schemas of resources, registering a component for every resource name that
 * names one shape only (see the file comment).
 */
export class ItemSchemas {
  readonly components: Record<string, JsonSchema> = {};
  private readonly shapesByName = new Map<string, Set<string>>();

  /** `reserved`: the names of the other components, which no resource may take. */
  constructor(resources: Iterable<Resource>, reserved: readonly string[]) {
    for (const resource of resources) this.collect(resource);
    for (const name of reserved) {
      if (this.shapesByName.has(name)) throw new Error(`resource name ${name} is reserved`);
    }
  }

  /** The schema of one item of `resource`: a component reference, or the schema inline. */
  schemaOf(resource: Resource): JsonSchema {
    if (!this.isComponent(resource.name)) return this.objectSchema(resource, false);
    this.components[resource.name] ??= this.objectSchema(resource, true);
    return schemaRef(resource.name);
  }

  private isComponent(name: string): boolean {
    return this.shapesByName.get(name)?.size === 1;
  }

  private collect(resource: Resource): void {
    const shapes = this.shapesByName.get(resource.name) ?? new Set<string>();
    shapes.add(JSON.stringify(this.inline(resource)));
    this.shapesByName.set(resource.name, shapes);
    for (const field of Object.values(resource.fields)) {
      const below = subResource(field);
      if (below) this.collect(below);
    }
  }

  /** The whole shape of a resource, everything inline: what two same-named ones compare. */
  private inline(resource: Resource): JsonSchema {
    return this.objectSchema(resource, false, (below) => this.inline(below));
  }

  private objectSchema(
    resource: Resource,
    component: boolean,
    nested: (resource: Resource) => JsonSchema = (below) => this.schemaOf(below),
  ): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    for (const [name, field] of Object.entries(resource.fields)) {
      properties[name] = withDescription(this.fieldSchema(field, nested), fieldDescription(field));
    }
    const standard = Object.entries(resource.fields)
      .filter(([, field]) => field.standard)
      .map(([name]) => name);
    const optional = Object.keys(resource.fields).length - standard.length;
    return {
      ...(component ? {} : { title: resource.name }),
      type: 'object',
      description:
        optional === 0
          ? 'Every field is returned by default; `fields` can choose fewer.'
          : `By default: ${standard.join(', ')}. The others only when named in \`fields\`, which can also choose fewer.`,
      properties,
      // The engine returns exactly the chosen fields, never others.
      additionalProperties: false,
    };
  }

  private fieldSchema(field: RestField, nested: (resource: Resource) => JsonSchema): JsonSchema {
    switch (field.kind) {
      case 'leaf':
        return field.schema;
      case 'object': {
        const schema = nested(field.fields);
        return field.nullIf === undefined ? schema : { anyOf: [schema, { type: 'null' }] };
      }
      case 'list':
        return { type: 'array', items: nested(field.item) };
    }
  }
}
