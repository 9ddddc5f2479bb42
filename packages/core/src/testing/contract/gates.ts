/** A promise with its opener, to hold one party of an interleaving at a chosen point. */
export interface Gate<T = void> {
  promise: Promise<T>;
  open(value: T): void;
}

/** A closed gate. */
export function gate<T = void>(): Gate<T> {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/**
 * Resolves when `work` settles or after `ms`, whichever is first; never rejects. It gives racers
 * that a correct lock holds back the time to run ahead if the lock were missing.
 */
export async function settledOrAfter(work: PromiseLike<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.resolve(work).then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
