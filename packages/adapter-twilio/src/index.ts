export type { TwilioCallbackOptions } from "./callback-handler.js";
export { twilioCallbacks } from "./callback-handler.js";
export { checkTwilioCredentials } from "./credentials-check.js";
export type { TwilioInboundOptions } from "./inbound-handler.js";
export {
  EMPTY_TWIML,
  handleTwilioInbound,
  TWILIO_INBOUND_ROUTE,
  twilioInboundReport,
} from "./inbound-handler.js";
export type { TwilioSettings } from "./plugin.js";
export { twilioPlugin } from "./plugin.js";
export type { TwilioPriceFetcher, TwilioPriceFetchOptions } from "./price-fetch.js";
export { twilioPriceFetcher } from "./price-fetch.js";
export type { TwilioParams } from "./signature.js";
export {
  formParams,
  signedUrlVariants,
  twilioSignature,
  verifyTwilioSignature,
} from "./signature.js";
export { reportOf, TWILIO_STATUSES, VALIDITY_EXPIRED } from "./status-map.js";
export type { TwilioProviderOptions, TwilioRequestSeen } from "./twilio-provider.js";
export {
  messageForm,
  statusCallbackUrl,
  TWILIO_LIMITS,
  twilioProvider,
  twilioSpec,
} from "./twilio-provider.js";
export type { TwilioMessage, TwilioRestError, TwilioStatusCallback } from "./wire.js";
