export {
  type CorruptibleHarness,
  type CorruptRow,
  runCorruptRowContract,
} from "./corrupt-rows-contract.js";
export * from "./fixtures.js";
export type { HarnessFactory } from "./harness.js";
export type { RawReaders, StorageHarness } from "./raw.js";
export { runStorageContract } from "./run-storage-contract.js";
export type { SeededOrganization } from "./seed.js";
export { seedDelivery, seedMessage, seedOrganization, seedWebhook } from "./seed.js";
