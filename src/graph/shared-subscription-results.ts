/**
 * A subscription event executed once for every subscriber that would execute it alike: the
 * same event object (src/live/live-prices.ts hands the subscriptions of one key the same
 * objects), the same document, operation and variables. Nothing else reaches a subscription's
 * answer (its fields read the event and the run's shared loaders; the caller only bounds how
 * many subscriptions it may hold), so 5,000 subscribers of one product build one answer
 * between them, not 5,000 (docs/benchmarks.md, "Live prices out").
 *
 * Documents with @defer or @stream keep the executor's own subscribe.
 */
import { mapAsyncIterator } from '@graphql-tools/utils';
import type { Plugin } from 'graphql-yoga';
import { createSourceEventStream, execute, type DocumentNode, type ExecutionResult } from 'graphql';
import type { RequestContext } from '../context.ts';
import { deliversIncrementally } from './incremental-delivery.ts';
import { executeEventAgain } from './live.ts';

type Answer = ExecutionResult | Promise<ExecutionResult>;

/** Per event, per document: the answer for each operation name and variables. */
type Answers = WeakMap<object, WeakMap<DocumentNode, Map<string, Answer>>>;

/**
 * `executed`: told of each execution, whatever number of subscribers it serves (an answer
 * whose database was away under it is executed again once it answers: ./live.ts).
 */
export function useSharedSubscriptionResults(executed: () => void = () => undefined): Plugin {
  const answers: Answers = new WeakMap();
  return {
    onSubscribe({ args, setSubscribeFn }) {
      if (deliversIncrementally(args.document)) return;
      setSubscribeFn(async (subscribeArgs) => {
        const events = await createSourceEventStream(subscribeArgs);
        if (!isAsyncIterable(events)) return events;
        const key = `${subscribeArgs.operationName ?? ''}\n${JSON.stringify(subscribeArgs.variableValues ?? {})}`;
        return mapAsyncIterator(events, (event: unknown) =>
          answerOf(answers, event, subscribeArgs.document, key, async () => {
            const execution = () => {
              executed();
              return execute({ ...subscribeArgs, rootValue: event }) as Answer;
            };
            let answer = await execution();
            while (
              await executeEventAgain(event, subscribeArgs.contextValue as RequestContext, answer)
            ) {
              answer = await execution();
            }
            return answer;
          }),
        );
      });
    },
  };
}

function answerOf(
  answers: Answers,
  event: unknown,
  document: DocumentNode,
  key: string,
  run: () => Answer,
): Answer {
  // What is not an object (the mark of a subscriber that fell behind) is no one else's.
  if (typeof event !== 'object' || event === null) return run();
  let byDocument = answers.get(event);
  if (byDocument === undefined) answers.set(event, (byDocument = new WeakMap()));
  let byKey = byDocument.get(document);
  if (byKey === undefined) byDocument.set(document, (byKey = new Map()));
  let answer = byKey.get(key);
  if (answer === undefined) byKey.set(key, (answer = run()));
  return answer;
}

function isAsyncIterable(value: object): value is AsyncIterable<unknown> {
  return Symbol.asyncIterator in value;
}
