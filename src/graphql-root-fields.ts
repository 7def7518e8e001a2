/**
 * Whether an operation asks for a root field by name, through its inline fragments and named
 * fragments: the response cache leaves introspection alone, compiled execution `_entities`.
 * Each fragment is looked at once, so the walk stays linear in the document's size.
 */
import { Kind, type DocumentNode, type SelectionSetNode } from 'graphql';

export function selectsRootField(
  document: DocumentNode,
  selectionSet: SelectionSetNode,
  names: ReadonlySet<string>,
  seen = new Set<string>(),
): boolean {
  return selectionSet.selections.some((selection) => {
    if (selection.kind === Kind.FIELD) return names.has(selection.name.value);
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      return selectsRootField(document, selection.selectionSet, names, seen);
    }
    if (seen.has(selection.name.value)) return false;
    seen.add(selection.name.value);
    const fragment = document.definitions.find(
      (definition) =>
        definition.kind === Kind.FRAGMENT_DEFINITION &&
        definition.name.value === selection.name.value,
    );
    return fragment?.kind === Kind.FRAGMENT_DEFINITION
      ? selectsRootField(document, fragment.selectionSet, names, seen)
      : false;
  });
}
