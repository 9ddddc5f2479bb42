import type { MemoryState } from "./state.js";
import { clone } from "./state.js";

/**
 * How a repository touches the state. Outside a transaction reads see the committed state and
 * writes wait for the storage's lock; inside one both work on the transaction's draft at once.
 * Every answer is deep-cloned, so callers never hold stored objects.
 */
export interface MemoryScope {
  read<T>(method: string, fn: (state: MemoryState) => T): Promise<T>;
  write<T>(method: string, fn: (state: MemoryState) => T): Promise<T>;
}

/** The hooks a scope needs from the storage that owns it. */
export interface ScopeHooks {
  /** Throws when the storage is closed, the transaction is over, or a failure is armed. */
  enter(method: string): void;
  /** The state to work on. */
  state(): MemoryState;
  /** Runs a write: under the lock outside transactions, directly inside one. */
  serialize<T>(fn: () => T): Promise<T>;
}

/** A scope over the given hooks. */
export function createScope(hooks: ScopeHooks): MemoryScope {
  return {
    async read(method, fn) {
      hooks.enter(method);
      return clone(fn(hooks.state()));
    },
    async write(method, fn) {
      hooks.enter(method);
      return hooks.serialize(() => clone(fn(hooks.state())));
    },
  };
}
