export { applicationJwt } from "./application-jwt.js";
export type { VonageCallbackOptions } from "./callback-handler.js";
export { vonageCallbacks } from "./callback-handler.js";
export { checkVonageCredentials } from "./credentials-check.js";
export type { VonageInbound, VonageInboundOptions } from "./inbound-handler.js";
export { handleVonageInbound, VONAGE_INBOUND_ROUTE, vonageInbound } from "./inbound-handler.js";
export { clientRefOf, parseClientRef } from "./legs.js";
export type { VonageSettings } from "./plugin.js";
export { vonagePlugin } from "./plugin.js";
export {
  providerCodeOf,
  reportOf,
  TTL_EXPIRED,
  UNDELIVERABLE_DESCRIPTION,
  VONAGE_STATUSES,
} from "./status-map.js";
export type { VonageProviderOptions, VonageRequestSeen } from "./vonage-provider.js";
export {
  statusWebhookUrl,
  VONAGE_LIMITS,
  vonageMessage,
  vonageProvider,
  vonageSpec,
} from "./vonage-provider.js";
export type { VonageSignatureOptions, VonageSignatureVerdict } from "./webhook-signature.js";
export { verifyVonageWebhook } from "./webhook-signature.js";
export type {
  VonageError,
  VonageMessageAccepted,
  VonageMessageRequest,
  VonageStatus,
} from "./wire.js";
