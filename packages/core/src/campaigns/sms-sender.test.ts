import { describe, expect, it } from "vitest";
import { sendWorld } from "../testing/message-kit.js";
import { createCampaign } from "./create-campaign.js";
import { updateCampaign } from "./update-campaign.js";

const VIBER = {
  name: "Codes",
  channel: "viber",
  category: "otp",
  sender: "AcmeShop",
  template: "Your code is {{pin}}",
  sms_fallback: true,
};

describe("a Viber campaign's sms_sender", () => {
  it("is stored normalized, shown, and null by default", async () => {
    const w = await sendWorld();
    const plain = (await createCampaign(w.deps, w.actor, VIBER))._unsafeUnwrap();
    expect(plain.sms_sender).toBeNull();
    const withNumber = (
      await createCampaign(w.deps, w.actor, { ...VIBER, sms_sender: "+1 415 555 2671" })
    )._unsafeUnwrap();
    expect(withNumber.sms_sender).toBe("+14155552671");
  });

  it("follows the SMS sender rules, and belongs to Viber campaigns only", async () => {
    const w = await sendWorld();
    const bad = await createCampaign(w.deps, w.actor, { ...VIBER, sms_sender: "Acme Shop Online" });
    expect(bad._unsafeUnwrapErr()).toMatchObject({
      code: "validation_failed",
      issues: [{ path: "sms_sender" }],
    });
    const sms = await createCampaign(w.deps, w.actor, {
      ...VIBER,
      channel: "sms",
      sms_fallback: false,
      sender: "Acme",
      sms_sender: "AcmeSMS",
    });
    expect(sms._unsafeUnwrapErr()).toMatchObject({
      issues: [{ path: "sms_sender", rule: "viber_only" }],
    });
  });

  it("is set, cleared with null, and dropped when the campaign moves to SMS", async () => {
    const w = await sendWorld();
    const { campaign_id } = (await createCampaign(w.deps, w.actor, VIBER))._unsafeUnwrap();
    const set = await updateCampaign(w.deps, w.actor, campaign_id, { sms_sender: "AcmeSMS" });
    expect(set._unsafeUnwrap().sms_sender).toBe("AcmeSMS");
    const cleared = await updateCampaign(w.deps, w.actor, campaign_id, { sms_sender: null });
    expect(cleared._unsafeUnwrap().sms_sender).toBeNull();
    await updateCampaign(w.deps, w.actor, campaign_id, { sms_sender: "AcmeSMS" });
    const moved = await updateCampaign(w.deps, w.actor, campaign_id, {
      channel: "sms",
      sms_fallback: false,
      sender: "Acme",
    });
    expect(moved._unsafeUnwrap().sms_sender).toBeNull();
  });
});
