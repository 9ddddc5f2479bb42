// The public face of `@tidings/adapter-infobip/testing`: a loopback fake of Infobip for tests
// and local development.
export type {
  FakeInfobip,
  FakeInfobipAnswer,
  FakeInfobipOptions,
  FakeReportStatus,
  ReceivedInfobipSend,
} from "./fake-infobip.js";
export { startFakeInfobip } from "./fake-infobip.js";
export {
  infobipInboundBody,
  infobipInboundSms,
  infobipInboundViber,
  postInfobipInbound,
} from "./infobip-inbound.js";
