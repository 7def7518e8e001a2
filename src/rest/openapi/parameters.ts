/** A REST route's parameters in the OpenAPI document, from their declarations (params.ts). */
import type { JsonSchema, OpenApiParameter } from '../../openapi/vocabulary.ts';
import type { ParamSchema, ParamSpec } from '../params.ts';

/** A regular expression as a JSON Schema `pattern` (ECMA-262, the same dialect). */
function patternOf(pattern: RegExp): string {
  if (pattern.flags.replace('u', '') !== '') {
    throw new Error(`pattern /${pattern.source}/${pattern.flags}: flags cannot be documented`);
  }
  return pattern.source;
}

/** The JSON Schema of a parameter's declared contract (every parameter refuses ''). */
function paramSchema(schema: ParamSchema): JsonSchema {
  switch (schema.type) {
    case 'string':
      return {
        type: 'string',
        minLength: 1,
        ...(schema.maxLength === undefined ? {} : { maxLength: schema.maxLength }),
        ...(schema.pattern ? { pattern: patternOf(schema.pattern) } : {}),
        ...(schema.maxTerms === undefined
          ? {}
          : { description: `At most ${schema.maxTerms} space-separated terms.` }),
      };
    case 'integer':
      return {
        type: 'integer',
        minimum: schema.minimum,
        maximum: schema.maximum,
        ...(schema.default === undefined ? {} : { default: schema.default }),
      };
    case 'number':
      return { type: 'number', minimum: schema.minimum, maximum: schema.maximum };
    case 'enum':
      return {
        type: 'string',
        enum: schema.upperCaseToo
          ? [...schema.values, ...schema.values.map((value) => value.toUpperCase())]
          : [...schema.values],
      };
    case 'idList':
      return {
        type: 'string',
        pattern: `^[0-9]+(,[0-9]+){0,${schema.maxItems - 1}}$`,
        description: `Up to ${schema.maxItems} comma-separated unsigned decimal integers.`,
      };
  }
}

export function parameterOf(spec: ParamSpec): OpenApiParameter {
  if (spec.in === 'path' && !spec.required) {
    throw new Error(`path parameter ${spec.name} must be required`);
  }
  let description = spec.description;
  if (spec.replacedBy !== undefined && !description.includes(spec.replacedBy)) {
    description += ` Deprecated: use ${spec.replacedBy}.`;
  }
  return {
    name: spec.name,
    in: spec.in,
    description,
    ...(spec.required ? { required: true } : {}),
    ...(spec.replacedBy === undefined ? {} : { deprecated: true }),
    schema: paramSchema(spec.schema),
  };
}
