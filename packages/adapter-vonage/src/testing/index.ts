// The public face of `@tidings/adapter-vonage/testing`: a loopback fake of the Vonage Messages
// API for tests and local development.
export type {
  FakeVonage,
  FakeVonageAnswer,
  FakeVonageOptions,
  ReceivedVonageSend,
} from "./fake-vonage.js";
export { startFakeVonage } from "./fake-vonage.js";
export type { PostVonageInboundOptions } from "./vonage-inbound.js";
export {
  postVonageInbound,
  vonageInboundRequest,
  vonageInboundText,
  vonageWebhookToken,
} from "./vonage-inbound.js";
