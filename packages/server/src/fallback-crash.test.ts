import { join } from "node:path";
import { startFakeInfobip } from "@tidings/adapter-infobip/testing";
import { sqliteStorage } from "@tidings/adapter-sqlite";
import { startFakeTwilio } from "@tidings/adapter-twilio/testing";
import { createIds, recordUpstreamReport, systemClock } from "@tidings/core";
import { cleanupsEach, readableSecretBox } from "@tidings/core/testing";
import twilio from "twilio";
import { expect, it } from "vitest";
import { eventually } from "./testing/eventually.js";
import { startInProcess } from "./testing/in-process.js";
import { createSender } from "./testing/process-cluster.js";
import { tempWorkspace } from "./testing/run-cli.js";

// Issue 34: the SMS fallback after the fact survives a crash between the report and the SMS.
// A process that died right after storing Infobip's failure report leaves exactly this behind:
// the report's write (the message on SMS, its SMS due) and no SMS sent. That state is made here
// with the same use case the callback runs, on the server's SQLite file while no server runs;
// the next `serve` sends the SMS on Twilio, whose report then delivers the message.

const cleanups = cleanupsEach();
const API_KEY = "crash-test-infobip-key";
const ACCOUNT = `AC${"4".repeat(32)}`;
const TOKEN = "crash-test-twilio-token";

it("a fallback SMS owed when the process died goes out from the next process", {
  timeout: 60_000,
}, async () => {
  const infobip = await startFakeInfobip({ apiKey: API_KEY });
  cleanups.push(() => infobip.close());
  const fakeTwilio = await startFakeTwilio({
    accountSid: ACCOUNT,
    authToken: TOKEN,
    sign: twilio.getExpectedTwilioSignature,
  });
  cleanups.push(() => fakeTwilio.close());
  const workspace = tempWorkspace();
  cleanups.push(() => workspace.cleanup());
  const env = {
    ...workspace.env,
    TIDINGS_DEV: "1",
    TIDINGS_LOG_LEVEL: "info",
    TIDINGS_PROVIDER_VIBER: "infobip",
    TIDINGS_PROVIDER_SMS: "twilio",
    TIDINGS_INFOBIP_BASE_URL: infobip.url,
    TIDINGS_INFOBIP_API_KEY: API_KEY,
    TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
    TIDINGS_TWILIO_AUTH_TOKEN: TOKEN,
    TIDINGS_TWILIO_API_URL: fakeTwilio.url,
  };
  const { token } = await createSender(
    env,
    "profiles:write,messages:send,messages:read,campaigns:manage",
  );
  const serve = async () => {
    const server = startInProcess(workspace.dir, ["serve", "--port", "0"], env);
    const { port } = await server.waitForLog("listening");
    const url = `http://127.0.0.1:${String(port)}`;
    const call = async (method: string, path: string, body?: unknown) =>
      (await (
        await fetch(`${url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
      ).json()) as Record<string, unknown>;
    return { server, url, call };
  };

  const first = await serve();
  const campaign = await first.call("POST", "/v1/campaigns", {
    name: "Codes",
    channel: "viber",
    category: "otp",
    sender: "AcmeShop",
    template: "Your code is {{pin}}",
    sms_fallback: true,
    status: "active",
  });
  const sent = await first.call("POST", "/v1/messages/send", {
    campaign_id: campaign.campaign_id,
    recipient: { type: "phone_number", value: "+41793026730" },
    params: { pin: "2468" },
  });
  const messageId = String(sent.message_id);
  expect(infobip.sends).toHaveLength(1);
  await first.server.stop();

  // The report's write, and then the process is gone: no SMS was sent.
  const storage = sqliteStorage(join(workspace.dir, "tidings.db"));
  const clock = systemClock;
  const outcome = await recordUpstreamReport(
    { storage, clock, ids: createIds(clock), secretBox: readableSecretBox },
    {
      messageId,
      channel: "viber",
      provider: "infobip",
      providerMessageId: messageId,
      status: "failed",
      providerCode: "EC_UNKNOWN_USER",
    },
  );
  expect(outcome._unsafeUnwrap()).toMatchObject({ fell_back: true, status: "sent" });
  await storage.close();
  expect(fakeTwilio.sends).toHaveLength(0);

  const second = await serve();
  cleanups.push(async () => {
    await second.server.stop();
  });
  const sms = await eventually("the owed SMS at Twilio", async () => fakeTwilio.sends[0]);
  expect(sms.form).toMatchObject({
    To: "+41793026730",
    Body: "Your code is 2468",
    StatusCallback: `${second.url}/providers/twilio/status?m=${messageId}`,
  });
  expect((await fakeTwilio.callback(String(sms.sid), "delivered")).status).toBe(200);
  const message = await eventually("the message delivered by SMS", async () => {
    const view = await second.call("GET", `/v1/messages/${messageId}`);
    return view.status === "delivered" ? view : undefined;
  });
  expect(message).toMatchObject({
    channel: "sms",
    provider: "twilio",
    provider_message_id: sms.sid,
  });
  expect(fakeTwilio.sends).toHaveLength(1);
});
