import { describe, expect, it } from "vitest";
import { createCampaign } from "../campaigns/create-campaign.js";
import type { InboundReport } from "../ports.js";
import { sendBody, sendWorld } from "../testing/message-kit.js";
import { inboundSink } from "./inbound-sink.js";

const PERSON = "+14155550123";
const SENDER = "+15005550006";

const report = (overrides: Partial<InboundReport> = {}): InboundReport => ({
  provider: "twilio",
  providerMessageId: `SM${Math.random().toString(36).slice(2)}`,
  channel: "sms",
  from: PERSON,
  to: SENDER,
  text: "STOP",
  receivedAt: null,
  providerKeywordClass: null,
  ...overrides,
});

async function world() {
  const w = await sendWorld();
  const sink = inboundSink(w.deps);
  const smsCampaign = async (category: string, sender = SENDER) =>
    (
      await createCampaign(w.deps, w.actor, {
        name: `${category} ${sender}`,
        channel: "sms",
        category,
        sender,
        template: "Hi {{name}} {{order}}",
        status: "active",
      })
    )._unsafeUnwrap();
  return { ...w, sink, smsCampaign };
}

describe("the inbound sink", () => {
  it("owns a message by the organizations that sent to the number from the sender, else by assignment", async () => {
    const w = await world();
    expect(await w.sink.receive(report())).toBe("no_owner");
    expect(await w.sink.receive(report({ from: "not a number" }))).toBe("bad_sender");
    await w.storage.senders.assign({
      organizationId: w.actor.organizationId,
      channel: "sms",
      sender: SENDER,
      createdAt: "2026-05-01T12:00:00.000Z",
    });
    // A STOP for a number with no profile still suppresses it.
    expect(await w.sink.receive(report({ providerMessageId: "SM1" }))).toBe("stored");
    expect(await w.sink.receive(report({ providerMessageId: "SM1" }))).toBe("duplicate");
    const listed = await w.storage.inbound.list({
      organizationId: w.actor.organizationId,
      limit: 10,
    });
    expect(listed).toHaveLength(1);
    const campaign = await w.smsCampaign("transactional", "Acme");
    const refused = await w.send(sendBody(campaign.campaign_id, PERSON));
    expect(refused._unsafeUnwrapErr().code).toBe("recipient_opted_out");
    // The refused send stored nothing, not even the profile it would have made.
    expect(await w.storage.profiles.findByPhone(w.actor.organizationId, PERSON)).toBeNull();
  });

  it("the provider's own keyword class wins, and help changes nothing", async () => {
    const w = await world();
    const campaign = await w.smsCampaign("transactional");
    (await w.send(sendBody(campaign.campaign_id, PERSON)))._unsafeUnwrap();
    expect(await w.sink.receive(report({ text: "stop it", providerKeywordClass: "help" }))).toBe(
      "stored",
    );
    expect((await w.send(sendBody(campaign.campaign_id, PERSON))).isOk()).toBe(true);
    expect(
      await w.sink.receive(report({ text: "whatever", providerKeywordClass: "opt_out" })),
    ).toBe("stored");
    expect((await w.send(sendBody(campaign.campaign_id, PERSON)))._unsafeUnwrapErr().code).toBe(
      "recipient_opted_out",
    );
  });

  it("START lifts only an inbound or provider suppression and restores only the consent STOP removed", async () => {
    const w = await world();
    const campaign = await w.smsCampaign("transactional");
    await w.profile({ phone_number: PERSON, sms_marketing_consent: false });
    (await w.send(sendBody(campaign.campaign_id, PERSON)))._unsafeUnwrap();
    await w.sink.receive(report({ text: "STOP" }));
    await w.sink.receive(report({ text: "START" }));
    const profile = await w.storage.profiles.findByPhone(w.actor.organizationId, PERSON);
    // Consent was false before the STOP, so START does not make it true.
    expect(profile?.smsMarketingConsent).toBe(false);
    expect((await w.send(sendBody(campaign.campaign_id, PERSON))).isOk()).toBe(true);
  });

  it("a Twilio 21610 refusal suppresses the number with source provider and turns consent off", async () => {
    const w = await sendWorld({
      provider: {
        name: "twilio",
        dispatch: async () => ({
          status: "rejected",
          error: {
            code: "upstream_rejected",
            message: "Attempt to send to unsubscribed recipient",
            provider_code: "21610",
          },
        }),
      },
    });
    const campaign = (
      await createCampaign(w.deps, w.actor, {
        name: "Offers",
        channel: "sms",
        category: "promotional",
        sender: SENDER,
        template: "Hi {{name}} {{order}}",
        status: "active",
      })
    )._unsafeUnwrap();
    await w.profile({ phone_number: PERSON, sms_marketing_consent: true });
    const sent = (await w.send(sendBody(campaign.campaign_id, PERSON)))._unsafeUnwrap();
    expect(sent.status).toBe("failed");
    expect(sent.error?.code).toBe("recipient_opted_out");
    const profile = await w.storage.profiles.findByPhone(w.actor.organizationId, PERSON);
    expect(profile?.smsMarketingConsent).toBe(false);
    const history = await w.storage.consent.listForProfile(
      w.actor.organizationId,
      profile?.id ?? "",
    );
    expect(history.at(-1)).toEqual(
      expect.objectContaining({ source: "provider", newValue: false, apiKeyId: null }),
    );
    const [suppression] = await w.storage.suppressions.list({
      organizationId: w.actor.organizationId,
      limit: 10,
    });
    expect(suppression).toEqual(
      expect.objectContaining({ source: "provider", provider: "twilio", consentBefore: true }),
    );
    expect((await w.send(sendBody(campaign.campaign_id, PERSON)))._unsafeUnwrapErr().code).toBe(
      "recipient_opted_out",
    );
  });
});
