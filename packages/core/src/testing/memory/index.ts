export type { MemoryStorage, MemoryStorageOptions } from "./memory-storage.js";
export { memoryRawReaders, memoryStorage } from "./memory-storage.js";
