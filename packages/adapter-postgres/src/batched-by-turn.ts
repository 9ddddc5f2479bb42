/** The most items one batched call carries; more waiting start another call at once. */
const BATCH_LIMIT = 100;

interface Waiting<Item, Answer> {
  item: Item;
  resolve: (answer: Answer) => void;
  reject: (error: unknown) => void;
}

/** How `batchedByTurn` gathers and runs its items. */
export interface Batching<Item, Answer> {
  /** Runs one item alone. */
  one: (item: Item) => Promise<Answer>;
  /** Runs several items of one group together, answering for each in their order. */
  many: (items: Item[]) => Promise<Answer[]>;
  /** Whether a failed `many` surely wrote nothing, so each item may run again alone. */
  alone: (error: unknown) => boolean;
  /** The group an item belongs to: only items of one group share a batched call. */
  groupOf: (item: Item) => string;
  /**
   * What an item may contend for with others of its batch (a unique value): when the items
   * run again alone, those that share it run one after the other, in the order they were
   * asked for, as the batched call would have taken them; the others run at once.
   */
  contendedOf?: ((item: Item) => string) | undefined;
  /** The most items one batched call carries (default 100). */
  limit?: number | undefined;
}

/**
 * Gathers the calls made in one turn of the event loop into one batched call per group, a
 * group commit for statements that each commit alone: concurrent requests' inserts become one
 * statement, one round trip and one commit. Each caller hears only after that statement
 * committed, and hears what `one` would have told it. A batch of one goes through `one`.
 *
 * When the batched call fails with an error `alone` accepts (one that says the batch wrote
 * nothing, and that one item may be to blame), every item runs again through `one`, so a bad
 * item fails alone, with its own error. Any other error (a lost connection, which may have come
 * after the commit) fails every item with it: running them again could answer for writes
 * that were made.
 */
export function batchedByTurn<Item, Answer>({
  one,
  many,
  alone,
  groupOf,
  contendedOf,
  limit = BATCH_LIMIT,
}: Batching<Item, Answer>): (item: Item) => Promise<Answer> {
  let waiting = new Map<string, Array<Waiting<Item, Answer>>>();

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
      await eachAlone(batch, one, contendedOf);
      return;
    }
    for (const [i, waiter] of batch.entries()) waiter.resolve(answers[i]!);
  };

  const flush = (): void => {
    const groups = waiting;
    waiting = new Map();
    for (const group of groups.values()) {
      for (let start = 0; start < group.length; start += limit) {
        void settle(group.slice(start, start + limit));
      }
    }
  };

  return (item) =>
    new Promise<Answer>((resolve, reject) => {
      if (waiting.size === 0) setImmediate(flush);
      const key = groupOf(item);
      const group = waiting.get(key);
      if (group === undefined) waiting.set(key, [{ item, resolve, reject }]);
      else group.push({ item, resolve, reject });
    });
}

/**
 * Runs each waiter's item through `one` and answers it: at once, except that the items
 * `contendedOf` puts together run one after the other in their order, each after the one
 * before it settled.
 */
async function eachAlone<Item, Answer>(
  batch: Array<Waiting<Item, Answer>>,
  one: (item: Item) => Promise<Answer>,
  contendedOf: ((item: Item) => string) | undefined,
): Promise<void> {
  const last = new Map<string, Promise<void>>();
  const runs = batch.map((waiter) => {
    const run = () => one(waiter.item).then(waiter.resolve, waiter.reject);
    if (contendedOf === undefined) return run();
    const contended = contendedOf(waiter.item);
    const settled = (last.get(contended) ?? Promise.resolve()).then(run);
    last.set(contended, settled);
    return settled;
  });
  await Promise.all(runs);
}
