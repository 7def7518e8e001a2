/**
 * The committed SDL is the schema the code builds, and every part of the schema a client
 * reads in GraphiQL's docs explains itself.
 */
import { readFile } from 'node:fs/promises';
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isSpecifiedDirective,
  isSpecifiedScalarType,
  type GraphQLArgument,
  type GraphQLInterfaceType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { printedSchema, SCHEMA_FILE } from '../../src/cli/print-schema.ts';
import { NODE_TYPES } from '../../src/graph/builder.ts';
import { schema } from '../../src/graph/schema.ts';

/** Coordinates (Type.field(arg:)) of every schema element without a description. */
function undescribed(): string[] {
  const missing: string[] = [];
  const check = (coordinate: string, description: string | null | undefined) => {
    if (!description?.trim()) missing.push(coordinate);
  };
  const checkArgs = (owner: string, args: readonly GraphQLArgument[]) => {
    for (const arg of args) check(`${owner}(${arg.name}:)`, arg.description);
  };

  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || isSpecifiedScalarType(type)) continue;
    check(type.name, type.description);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        check(`${type.name}.${field.name}`, field.description);
        checkArgs(`${type.name}.${field.name}`, field.args);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        check(`${type.name}.${field.name}`, field.description);
      }
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) check(`${type.name}.${value.name}`, value.description);
    }
  }
  for (const directive of schema.getDirectives()) {
    if (isSpecifiedDirective(directive)) continue;
    check(`@${directive.name}`, directive.description);
    checkArgs(`@${directive.name}`, directive.args);
  }
  return missing;
}

describe('the printed schema', () => {
  it('is committed as schema/schema.graphql (run `npm run schema:print` after a change)', async () => {
    const committed = await readFile(SCHEMA_FILE, 'utf8');
    expect(committed).toBe(printedSchema());
  });

  it('describes every type, field, argument, enum value and input field', () => {
    expect(undescribed()).toEqual([]);
  });

  it('accepts global ids of exactly the types that implement Node', () => {
    const implementations = schema
      .getPossibleTypes(schema.getType('Node') as GraphQLInterfaceType)
      .map((type) => type.name);
    expect([...NODE_TYPES].sort()).toEqual(implementations.sort());
  });
});
