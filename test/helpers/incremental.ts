/**
 * Reading an answer delivered in parts (@defer, @stream) as a client does: multipart/mixed or
 * an event stream, part by part as the body arrives, and the parts merged into the whole
 * answer they stand for (the 2022-08-24 format yoga's executor sends).
 */
import type { GraphQLFormattedError } from 'graphql';

export interface IncrementalPatch {
  path: (string | number)[];
  label?: string;
  /** @defer: fields to add to the object at `path`. */
  data?: Record<string, unknown> | null;
  /** @stream: items to add to the list at `path`, from its index. */
  items?: unknown[];
  errors?: GraphQLFormattedError[];
}

export interface IncrementalPart {
  data?: Record<string, unknown> | null;
  errors?: GraphQLFormattedError[];
  incremental?: IncrementalPatch[];
  hasNext?: boolean;
}

export type Transport = 'multipart/mixed' | 'text/event-stream';

/** The body's parts in the order they arrived; `arrived` is called as each does. */
export async function readParts(
  response: Response,
  transport: Transport,
  arrived: (part: IncrementalPart) => void = () => undefined,
): Promise<IncrementalPart[]> {
  const parts: IncrementalPart[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  const take = transport === 'multipart/mixed' ? takeMultipartParts : takeEvents;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    const { complete, rest } = take(buffered);
    buffered = rest;
    for (const part of complete) {
      parts.push(part);
      arrived(part);
    }
  }
  return parts;
}

/** multipart/mixed, boundary `-`: each part's headers, a blank line, its JSON. */
export function takeMultipartParts(text: string): { complete: IncrementalPart[]; rest: string } {
  const sections = text.split(/\r\n---(?:--)?/);
  const rest = sections.pop() ?? '';
  const complete = sections
    .map((section) => section.split('\r\n\r\n').slice(1).join('\r\n\r\n').trim())
    .filter((json) => json !== '')
    .map((json) => JSON.parse(json) as IncrementalPart);
  return { complete, rest };
}

/** An event stream: `event: next` events carry the parts; `event: complete` ends it. */
function takeEvents(text: string): { complete: IncrementalPart[]; rest: string } {
  const events = text.split('\n\n');
  const rest = events.pop() ?? '';
  const complete = events
    .map((event) => event.split('\n'))
    .filter((lines) => lines.includes('event: next'))
    .map((lines) =>
      lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice('data: '.length))
        .join('\n'),
    )
    .map((json) => JSON.parse(json) as IncrementalPart);
  return { complete, rest };
}

/** The whole answer the parts stand for: the first part's data with every patch applied. */
export function mergedParts(parts: IncrementalPart[]): {
  data: Record<string, unknown> | null | undefined;
  errors: GraphQLFormattedError[];
} {
  const [initial, ...later] = parts;
  const data = structuredClone(initial?.data);
  const errors = [...(initial?.errors ?? [])];
  for (const patch of later.flatMap((part) => part.incremental ?? [])) {
    errors.push(...(patch.errors ?? []));
    if (patch.items) {
      // The path of the first item streamed: its list is one step up.
      const list = at(data, patch.path.slice(0, -1));
      if (Array.isArray(list)) list.push(...patch.items);
    } else if (patch.data) {
      const target = at(data, patch.path);
      if (target) Object.assign(target, deepMerged(target, patch.data));
    }
  }
  return { data, errors };
}

function at(data: unknown, path: (string | number)[]): any {
  return path.reduce<any>((value, key) => value?.[key], data);
}

function deepMerged(target: any, source: any): any {
  if (Array.isArray(source) && Array.isArray(target)) {
    return source.map((item, index) => deepMerged(target[index], item));
  }
  if (
    source === null ||
    typeof source !== 'object' ||
    target === null ||
    typeof target !== 'object'
  ) {
    return source;
  }
  const merged = { ...target };
  for (const [key, value] of Object.entries(source)) merged[key] = deepMerged(target[key], value);
  return merged;
}
