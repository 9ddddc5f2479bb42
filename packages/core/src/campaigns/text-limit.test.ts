import { describe, expect, it } from "vitest";
import type { Actor } from "../deps.js";
import type { Channel, ChannelProvider } from "../ports.js";
import { channelRouter } from "../providers/channel-router.js";
import { failoverProvider } from "../providers/failover-provider.js";
import { manualClock } from "../support/clock.js";
import { createIds } from "../support/ids.js";
import { memoryStorage } from "../testing/memory/index.js";
import { sendBody, sendWorld } from "../testing/message-kit.js";
import { createCampaign } from "./create-campaign.js";
import { templateFloor } from "./text-limit.js";
import { activateCampaign, updateCampaign } from "./update-campaign.js";

/** A provider that carries nothing here but says its text limits (as the adapters' do). */
const limited = (name: string, text: Partial<Record<Channel, number>>): ChannelProvider => ({
  name,
  textLimit: (channel) => {
    const characters = text[channel];
    return characters === undefined ? null : { characters, provider: name };
  },
  dispatch: async () => ({ status: "accepted", providerMessageId: null }),
});

function setup(provider: ChannelProvider) {
  const clock = manualClock(Date.UTC(2026, 4, 1, 12));
  const deps = { storage: memoryStorage(), clock, ids: createIds(clock), provider };
  const actor: Actor = { organizationId: "org_a", apiKeyId: null };
  return { deps, actor };
}

const twilio = limited("twilio", { sms: 1600 });
const vonage = limited("vonage", { viber: 1000, sms: 1000 });
const infobip = limited("infobip", { viber: 1000 });
const SMS = { name: "Long", channel: "sms", category: "transactional", sender: "Acme" };

describe("limits at the door: a template must fit its providers' text limit once active", () => {
  it("counts a template's text without its placeholders", () => {
    expect(templateFloor("Hi {{name}}, code {{pin}}!")).toBe("Hi , code !".length);
    expect(templateFloor("€".repeat(3))).toBe(3);
  });

  it("refuses a 1,700-character template at activation on Twilio (1,600), naming the field, limit and provider", async () => {
    const { deps, actor } = setup(channelRouter({ viber: infobip, sms: twilio }));
    const created = await createCampaign(deps, actor, { ...SMS, template: "a".repeat(1700) });
    // An inactive campaign is a draft: it may be stored, and shortened before activation.
    const id = created._unsafeUnwrap().campaign_id;
    const refused = (await activateCampaign(deps, actor, id))._unsafeUnwrapErr();
    expect(refused).toMatchObject({
      type: "validation",
      issues: [{ path: "template", rule: "text_limit" }],
    });
    expect(refused.type === "validation" && refused.issues[0]?.message).toContain(
      "Twilio (twilio) takes at most 1600 characters of SMS text",
    );
    expect(
      (
        await createCampaign(deps, actor, { ...SMS, template: "a".repeat(1700), status: "active" })
      ).isErr(),
    ).toBe(true);
    const fits = await createCampaign(deps, actor, {
      ...SMS,
      template: "a".repeat(1600),
      status: "active",
    });
    expect(fits.isOk()).toBe(true);
    // A change that makes an active campaign too long is refused too.
    const grown = await updateCampaign(deps, actor, fits._unsafeUnwrap().campaign_id, {
      template: "b".repeat(1601),
    });
    expect(grown._unsafeUnwrapErr()).toMatchObject({ issues: [{ rule: "text_limit" }] });
  });

  it("takes the smallest limit of a failover list, and a Viber campaign with fallback must fit SMS too", async () => {
    const sms = failoverProvider(
      [
        { provider: twilio, senders: null },
        { provider: vonage, senders: { Acme: "Acme" } },
      ],
      { onTimeout: false },
    );
    const { deps, actor } = setup(channelRouter({ viber: infobip, sms }));
    const onList = await createCampaign(deps, actor, {
      ...SMS,
      template: "a".repeat(1001),
      status: "active",
    });
    expect(
      onList.isErr() && onList.error.type === "validation" && onList.error.issues[0]?.message,
    ).toContain("Vonage (vonage) takes at most 1000 characters of SMS text");
    const viber = {
      name: "V",
      channel: "viber",
      category: "transactional",
      sender: "Acme",
      status: "active",
    };
    const narrowSms = setup(
      channelRouter({ viber: limited("wide", { viber: 5000 }), sms: twilio }),
    );
    const alone = await createCampaign(narrowSms.deps, narrowSms.actor, {
      ...viber,
      template: "a".repeat(1700),
    });
    expect(alone.isOk()).toBe(true);
    const withFallback = await createCampaign(narrowSms.deps, narrowSms.actor, {
      ...viber,
      sender: "Acme2",
      template: "a".repeat(1700),
      sms_fallback: true,
    });
    expect(
      withFallback.isErr() &&
        withFallback.error.type === "validation" &&
        withFallback.error.issues[0]?.message,
    ).toContain("of SMS text (its SMS fallback)");
  });
});

describe("limits at the door: a send whose rendered text is too long", () => {
  it("is 400 text_too_long on params, and nothing is sent", async () => {
    let dispatched = 0;
    const provider: ChannelProvider = {
      ...limited("infobip", { viber: 1000 }),
      dispatch: async () => {
        dispatched += 1;
        return { status: "accepted", providerMessageId: "id" };
      },
    };
    const world = await sendWorld({ provider });
    // 952 characters besides the placeholders fit at activation; 100 more from a param do not.
    const { campaign_id } = await world.campaign({
      template: `${"x".repeat(950)} {{name}} {{order}}`,
    });
    const long = sendBody(campaign_id, "+447911123456", {
      params: { name: "A".repeat(100), order: "A-1001" },
    });
    const refused = (await world.send(long))._unsafeUnwrapErr();
    expect(refused).toMatchObject({
      type: "validation",
      code: "text_too_long",
      issues: [{ path: "params", rule: "text_too_long" }],
    });
    expect(refused.type === "validation" && refused.issues[0]?.message).toContain(
      "Infobip (infobip) takes at most 1000 characters of Viber text",
    );
    expect(dispatched).toBe(0);
    const fits = await world.send(sendBody(campaign_id, "+447911123456"));
    expect(fits.isOk()).toBe(true);
    expect(dispatched).toBe(1);
  });
});
