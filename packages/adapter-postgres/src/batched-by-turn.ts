/** What a batched call answers for each of its items, in their order. */
export type Many<Item, Answer> = (items: Item[]) => Promise<Answer[]>;

/** The most items one batched call carries; more waiting start another call at once. */
export const BATCH_LIMIT = 100;

interface Waiting<Item, Answer> {
  item: Item;
  resolve: (answer: Answer) => void;
  reject: (error: unknown) => void;
}

/**
 * Gathers the calls made in one turn of the event loop into one batched call, a group commit
 * for statements that each commit alone: concurrent requests' inserts become one statement, one
 * round trip and one commit. Each caller hears only after that statement committed, and hears
 * what `one` would have told it. A batch of one goes through `one`.
 *
 * When the batched call fails with an error `alone` accepts (one that says the batch wrote
 * nothing, and that one item may be to blame), every item runs again through `one`, so a bad
 * item fails alone, with its own error. Any other error (a lost connection, which may have come
 * after the commit) fails every item with it: running them again could answer for writes
 * that were made. `onFlush` hears when the waiting items leave for their batched call.
 */
export function batchedByTurn<Item, Answer>(
  one: (item: Item) => Promise<Answer>,
  many: Many<Item, Answer>,
  alone: (error: unknown) => boolean,
  onFlush: () => void = () => undefined,
  limit = BATCH_LIMIT,
): (item: Item) => Promise<Answer> {
  let waiting: Array<Waiting<Item, Answer>> = [];

  const settle = async (batch: Array<Waiting<Item, Answer>>): Promise<void> => {
    if (batch.length === 1) {
      const [only] = batch;
      await one(only!.item).then(only!.resolve, only!.reject);
      return;
    }
    let answers: Answer[];
    try {
      answers = await many(batch.map((waiter) => waiter.item));
    } catch (error) {
      if (!alone(error)) {
        for (const waiter of batch) waiter.reject(error);
        return;
      }
      await Promise.all(
        batch.map((waiter) => one(waiter.item).then(waiter.resolve, waiter.reject)),
      );
      return;
    }
    for (const [i, waiter] of batch.entries()) waiter.resolve(answers[i]!);
  };

  const flush = (): void => {
    const all = waiting;
    waiting = [];
    onFlush();
    for (let start = 0; start < all.length; start += limit) {
      void settle(all.slice(start, start + limit));
    }
  };

  return (item) =>
    new Promise<Answer>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (waiting.length === 1) setImmediate(flush);
    });
}
