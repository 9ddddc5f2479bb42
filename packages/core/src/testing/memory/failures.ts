/** Injected failures: the next call of a named repository method rejects with the given error. */
export interface FailureInjector {
  /** Arms one failure for `method` (e.g. `"messages.insert"`). Several arm a queue. */
  failNext(method: string, error?: Error | undefined): void;
  /** Throws the armed error for `method`, if any, consuming it. */
  check(method: string): void;
}

/** A fresh injector with nothing armed. */
export function createFailureInjector(): FailureInjector {
  const armed = new Map<string, Error[]>();
  return {
    failNext(method, error) {
      const queue = armed.get(method) ?? [];
      queue.push(error ?? new Error(`injected failure: ${method}`));
      armed.set(method, queue);
    },
    check(method) {
      const queue = armed.get(method);
      const error = queue?.shift();
      if (queue !== undefined && queue.length === 0) armed.delete(method);
      if (error !== undefined) throw error;
    },
  };
}
