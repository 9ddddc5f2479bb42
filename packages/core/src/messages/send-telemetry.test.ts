import { describe, expect, it } from "vitest";
import { sendBody, sendWorld } from "../testing/message-kit.js";
import { SANDBOX_NUMBERS } from "./sandbox-provider.js";

describe("a send reports its outcome through the Telemetry port (for tidings_messages_total)", () => {
  it("sent, fell back to SMS, or failed; labelled with the category and the campaign's channel", async () => {
    const w = await sendWorld();
    const viber = await w.campaign({ sms_fallback: true });
    const sms = await w.campaign({ channel: "sms", category: "otp", template: "Code {{pin}}" });
    await w.send(sendBody(viber.campaign_id, "+14155552671"));
    await w.send(sendBody(viber.campaign_id, SANDBOX_NUMBERS.notOnViber));
    await w.send(sendBody(viber.campaign_id, SANDBOX_NUMBERS.rejected));
    await w.send({ ...sendBody(sms.campaign_id, "+14155552671"), params: { pin: "1234" } });
    expect(w.reported).toEqual([
      { category: "transactional", channel: "viber", outcome: "sent" },
      { category: "transactional", channel: "viber", outcome: "fell_back_to_sms" },
      { category: "transactional", channel: "viber", outcome: "failed" },
      { category: "otp", channel: "sms", outcome: "sent" },
    ]);
  });

  it("reports nothing for a send refused before the hand-off", async () => {
    const w = await sendWorld();
    const { campaign_id } = await w.campaign();
    const refused = await w.send(sendBody(campaign_id, "not a phone number"));
    expect(refused.isErr()).toBe(true);
    expect(w.reported).toEqual([]);
  });
});
