// The public face of `@tidings/adapter-twilio/testing`: a loopback fake of Twilio for tests
// and local development.
export type {
  FakeTwilio,
  FakeTwilioAnswer,
  FakeTwilioOptions,
  ReceivedSend,
} from "./fake-twilio.js";
export { startFakeTwilio } from "./fake-twilio.js";
export type { PostTwilioInboundOptions, TwilioInboundMessage } from "./twilio-inbound.js";
export { postTwilioInbound, twilioInboundForm } from "./twilio-inbound.js";
