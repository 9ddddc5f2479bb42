/** A first-come, first-served async lock: one holder at a time, the others wait in order. */
export interface Mutex {
  run<T>(fn: () => Promise<T> | T): Promise<T>;
}

/** A fresh, unlocked mutex. */
export function createMutex(): Mutex {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(fn: () => Promise<T> | T): Promise<T> {
      const result = tail.then(() => fn());
      // The next holder waits for this one to settle, whether it resolved or rejected.
      tail = result.then(
        () => undefined,
        () => undefined,
      );
      return result;
    },
  };
}
