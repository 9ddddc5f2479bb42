export type { StorageModelOptions } from "./check-storage-model.js";
export { runStorageModel } from "./run-storage-model.js";
