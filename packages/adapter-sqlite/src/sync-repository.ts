/**
 * SQLite statements are synchronous. Repositories are written as plain synchronous functions
 * (`SyncOf<R>`) and turned into the port's promise-returning shape by `toAsync`, which decides
 * how each call runs: behind the connection's mutex, or directly inside an open transaction.
 */
export type SyncOf<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => Promise<infer T> ? (...args: A) => T : never;
};

/** How one synchronous repository call is scheduled. */
export type CallRunner = <T>(call: () => T) => Promise<T>;

/** The port-shaped repository whose every method runs its synchronous twin through `run`. */
export function toAsync<R extends object>(sync: SyncOf<R>, run: CallRunner): R {
  const methods: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(sync)) {
    const call = method as (...args: unknown[]) => unknown;
    methods[name] = (...args: unknown[]) => run(() => call(...args));
  }
  return methods as R;
}
