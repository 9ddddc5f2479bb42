// The public face of `@tidings/adapter-vonage/testing`: a loopback fake of the Vonage Messages
// API for tests and local development.
export type {
  FakeVonage,
  FakeVonageAnswer,
  FakeVonageOptions,
  ReceivedVonageSend,
} from "./fake-vonage.js";
export { startFakeVonage } from "./fake-vonage.js";
