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
export {
  applyRateLimitStep,
  type RateLimitStep,
  rateLimitStepArbitrary,
} from "./arbitraries/rate-limit-steps.js";
export type { Cleanup } from "./cleanups.js";
export { cleanupsEach } from "./cleanups.js";
export type {
  CallbackContractSetup,
  CallbackContractWorld,
} from "./contract/callback-contract.js";
export { runCallbackContract } from "./contract/callback-contract.js";
export type { CorruptibleHarness, CorruptRow } from "./contract/corrupt-rows-contract.js";
export { runCorruptRowContract } from "./contract/corrupt-rows-contract.js";
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
  completeOne,
  T0,
} from "./contract/fixtures.js";
export type { HarnessFactory } from "./contract/harness.js";
export type {
  ContractFake,
  ContractFault,
  ContractProviderOptions,
  ContractWorld,
  ProviderContractSetup,
} from "./contract/provider-contract.js";
export { runProviderContract } from "./contract/provider-contract.js";
export type { RawReaders, StorageHarness } from "./contract/raw.js";
export { runStorageContract } from "./contract/run-storage-contract.js";
export type { SeededOrganization } from "./contract/seed.js";
export { seedDelivery, seedMessage, seedOrganization, seedWebhook } from "./contract/seed.js";
export { checkWebhookBacklog } from "./contract/webhook-backlog-check.js";
export { repeatUntilDone, waitUntil, within } from "./deadlines.js";
export type { Answer, FakeTransport } from "./fakes.js";
export { fakeTransport, httpsOnly, readableSecretBox, status } from "./fakes.js";
export { fetchTransport, REFUSING_ORIGIN } from "./fetch-transport.js";
export type { MemoryStorage, MemoryStorageOptions } from "./memory/index.js";
export { memoryRawReaders, memoryStorage } from "./memory/index.js";
export type { StorageModelOptions } from "./model/index.js";
export { runStorageModel } from "./model/index.js";
export { skippedUnless } from "./skip-reason.js";
