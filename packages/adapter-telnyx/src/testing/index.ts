// The public face of `@tidings/adapter-telnyx/testing`: a loopback fake of Telnyx Messaging v2
// for tests and local development.
export type {
  FakeTelnyx,
  FakeTelnyxAnswer,
  FakeTelnyxOptions,
  ReceivedTelnyxSend,
  SignedPostOptions,
} from "./fake-telnyx.js";
export { startFakeTelnyx } from "./fake-telnyx.js";
