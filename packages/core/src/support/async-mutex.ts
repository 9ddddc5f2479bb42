/** Runs tasks one at a time, in the order they asked, even when they await in between. */
export interface AsyncMutex {
  run<T>(task: () => T | Promise<T>): Promise<T>;
}

/** A FIFO async mutex: a promise chain where each task starts after the previous one settled. */
export function createAsyncMutex(): AsyncMutex {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run(task) {
      const result = tail.then(task);
      // The next task waits for this one to settle, whether it resolved or rejected.
      tail = result.then(
        () => undefined,
        () => undefined,
      );
      return result;
    },
  };
}
