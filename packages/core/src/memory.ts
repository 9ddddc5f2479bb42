// The public face of `@tidings/core/memory`: the in-memory storage, the reference every
// storage adapter is tested against. For prototypes, demos and tests; it needs no test
// framework (the contract suite and the arbitraries stay in `@tidings/core/testing`).

export type { MemoryStorage, MemoryStorageOptions } from "./testing/memory/memory-storage.js";
export { memoryStorage } from "./testing/memory/memory-storage.js";
