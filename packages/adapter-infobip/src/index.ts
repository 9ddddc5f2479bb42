export type { InfobipCallbackOptions } from "./callback-handler.js";
export { infobipCallbacks } from "./callback-handler.js";
export { callbackKey, checkLegToken, legToken } from "./callback-token.js";
export { checkInfobipCredentials } from "./credentials-check.js";
export type { InfobipInboundOptions } from "./inbound-handler.js";
export {
  checkInboundToken,
  handleInfobipInbound,
  INFOBIP_INBOUND_ROUTE,
  inboundTokenDigests,
  inboundTokenProblem,
  infobipInboundResults,
  infobipTime,
  MIN_INBOUND_TOKEN_LENGTH,
} from "./inbound-handler.js";
export type { InfobipProviderOptions, InfobipRequestSeen } from "./infobip-provider.js";
export {
  INFOBIP_LIMITS,
  infobipMessage,
  infobipProvider,
  infobipSpec,
  legCallbackUrls,
} from "./infobip-provider.js";
export { legIdOf, parseLegId } from "./legs.js";
export type { InfobipSettings } from "./plugin.js";
export { infobipPlugin } from "./plugin.js";
export { descriptionOf, INFOBIP_GROUPS, providerCodeOf, reportOf } from "./status-map.js";
export type {
  InfobipApiError,
  InfobipDeliveryReport,
  InfobipMessage,
  InfobipSeenReport,
  InfobipSendRequest,
  InfobipSendResponse,
  InfobipStatus,
  ValidityPeriod,
} from "./wire.js";
