export type { TelnyxCallbackOptions } from "./callback-handler.js";
export { TELNYX_STATUSES, telnyxCallbacks } from "./callback-handler.js";
export { checkTelnyxCredentials, telnyxPlugin } from "./plugin.js";
export type { TelnyxProviderOptions, TelnyxSettings } from "./telnyx-provider.js";
export { TELNYX, telnyxProvider, telnyxSpec } from "./telnyx-provider.js";
export type { TelnyxSignatureVerdict } from "./webhook-signature.js";
export { telnyxPublicKey, verifyTelnyxWebhook } from "./webhook-signature.js";
