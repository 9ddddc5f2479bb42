export {
  type CorruptibleHarness,
  type CorruptRow,
  runCorruptRowContract,
} from "./corrupt-rows-contract.js";
export {
  aCampaign,
  aConsentChange,
  aContactList,
  aDelivery,
  aMembership,
  aMessage,
  anApiKey,
  anAttempt,
  anEvent,
  anIdempotencyRecord,
  anOrganization,
  aPhone,
  aProfile,
  at,
  aUuid,
  aWebhook,
  T0,
} from "./fixtures.js";
export type { HarnessFactory } from "./harness.js";
export type { RawReaders, StorageHarness } from "./raw.js";
export { runStorageContract } from "./run-storage-contract.js";
export type { SeededOrganization } from "./seed.js";
export { seedDelivery, seedMessage, seedOrganization, seedWebhook } from "./seed.js";
