/**
 * `nodes(ids:)`: objects by global ids, each id on its own. The relay plugin's own field
 * decodes the ids as its argument, so one malformed id failed the whole list; here a malformed
 * or unknown id is null at its position with an error at that path, and the others resolve.
 */
import { resolveNodes } from '@pothos/plugin-relay';
import { GraphQLError } from 'graphql';
import { badUserInput, serviceError } from '../../errors.ts';
import { builder, decodeNodeId } from '../builder.ts';

function decodedOrError(id: string): { typename: string; id: string } | GraphQLError {
  try {
    return decodeNodeId(id);
  } catch (error) {
    // The message `node(id:)` gives for the same id; the details name this argument.
    const message = error instanceof Error ? error.message : `not an id of this API: ${id}`;
    return badUserInput(message, 'ids', 'malformed_id');
  }
}

builder.queryField('nodes', (t) =>
  t.field({
    type: [builder.nodeInterfaceRef()],
    nullable: { list: false, items: true },
    description:
      'Objects by global ids, in the order given. An id that is malformed or names no object gives null at its position, with an error at that path (BAD_USER_INPUT or NOT_FOUND); the others resolve.',
    args: {
      ids: t.arg.idList({
        required: true,
        description: 'Global ids, as objects’ `id` fields give them.',
      }),
    },
    complexity: ({ ids }) => ({ field: 1, multiplier: ids.length }),
    resolve: async (_root, args, context, info) => {
      const ids = args.ids.map(String);
      const decoded = ids.map(decodedOrError);
      const found = await resolveNodes(
        builder,
        context,
        info,
        decoded.map((id) => (id instanceof GraphQLError ? null : id)),
      ).then((values) => Promise.all(values));
      // An Error in a list is that item's error: graphql-js answers null there, with the path.
      return decoded.map((id, index) => {
        if (id instanceof GraphQLError) return id;
        return (
          found[index] ??
          serviceError('NOT_FOUND', `no object has the id ${ids[index]}`, [
            { parameter: 'ids', reason: 'unknown' },
          ])
        );
      }) as unknown[] as never[];
    },
  }),
);
