// The public face of `@tidings/core/testing`, every name listed explicitly.

export {
  domainArbitrary,
  embedGluedInProse,
  embedInProse,
  gluedProseArbitrary,
  glueLink,
  hideLink,
  invalidParamsFor,
  linkArbitrary,
  proseArbitrary,
  validParamsFor,
} from "./arbitraries/params.js";
export type {
  CorruptibleHarness,
  CorruptRow,
  HarnessFactory,
  RawReaders,
  SeededOrganization,
  StorageHarness,
} from "./contract/index.js";
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
  runCorruptRowContract,
  runStorageContract,
  seedDelivery,
  seedMessage,
  seedOrganization,
  seedWebhook,
  T0,
} from "./contract/index.js";
export { repeatUntilDone, waitUntil, within } from "./deadlines.js";
export type { Answer, FakeTransport } from "./fakes.js";
export { fakeTransport, httpsOnly, readableSecretBox, status } from "./fakes.js";
export type { MemoryStorage, MemoryStorageOptions } from "./memory/index.js";
export { memoryRawReaders, memoryStorage } from "./memory/index.js";
export type { StorageModelOptions } from "./model/index.js";
export { runStorageModel } from "./model/index.js";
