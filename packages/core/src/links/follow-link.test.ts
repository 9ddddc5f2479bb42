import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createCampaign } from "../campaigns/create-campaign.js";
import { updateCampaign } from "../campaigns/update-campaign.js";
import { getMessage } from "../messages/get-message.js";
import { recordProviderReport } from "../messages/provider-report.js";
import type { ChannelProvider, OutboundMessage } from "../ports.js";
import { sendBody, sendWorld } from "../testing/message-kit.js";
import { followLink } from "./follow-link.js";

const HTTPS_BASE = { baseUrl: "https://t.example", dev: false };
const TEMPLATE =
  "Hi {{name}}, track https://shop.example/o/{{order}}?t=secret or see https://help.example/faq";

/** A provider that keeps what it was handed. */
function recordingProvider() {
  const handed: OutboundMessage[] = [];
  const provider: ChannelProvider = {
    name: "fake",
    async dispatch(message) {
      handed.push(message);
      return { status: "accepted", providerMessageId: `fake-${handed.length}` };
    },
  };
  return { provider, handed };
}

/** A world whose campaign tracks links, and one message sent through it. */
async function sentWithLinks() {
  const { provider, handed } = recordingProvider();
  const world = await sendWorld({ provider, links: HTTPS_BASE });
  const campaign = await world.campaign({ channel: "sms", template: TEMPLATE, track_links: true });
  await world.profile({ phone_number: "+14155550100" });
  const sent = (await world.send(sendBody(campaign.campaign_id, "+14155550100")))._unsafeUnwrap();
  const codes = [
    ...(handed[0]?.body ?? "").matchAll(/https:\/\/t\.example\/l\/([0-9A-Za-z]{12})/g),
  ].map((match) => match[1] ?? "");
  return { ...world, handed, messageId: sent.message_id, codes };
}

describe("following a tracked link (issue 35 item 3)", () => {
  it("the provider is handed short links; the originals are stored with the message", async () => {
    const { handed, codes, storage, messageId, org } = await sentWithLinks();
    expect(codes).toHaveLength(2);
    expect(handed[0]?.body).toBe(
      `Hi Ada, track https://t.example/l/${codes[0]} or see https://t.example/l/${codes[1]}`,
    );
    const stored = await storage.links.listForMessage(org.organization.id, messageId);
    expect(stored.map((link) => link.originalUrl).sort()).toEqual([
      "https://help.example/faq",
      "https://shop.example/o/A-1001?t=secret",
    ]);
  });

  it("two clicks record one message.clicked; a HEAD or preview counts nothing; a later delivered is ignored", async () => {
    const world = await sentWithLinks();
    const [first = "", second = ""] = world.codes;
    const preview = await followLink(world.deps, first, false);
    expect(preview).toEqual({
      kind: "redirect",
      location: "https://shop.example/o/A-1001?t=secret",
      counted: false,
      clicked: false,
    });
    expect(await world.topics(world.messageId)).toEqual(["message.sent"]);
    expect(await followLink(world.deps, first, true)).toMatchObject({
      counted: true,
      clicked: true,
    });
    expect(await followLink(world.deps, second, true)).toMatchObject({
      counted: true,
      clicked: false,
    });
    expect(await followLink(world.deps, first, true)).toMatchObject({ clicked: false });
    expect(await world.topics(world.messageId)).toEqual(["message.sent", "message.clicked"]);
    const late = (
      await recordProviderReport(world.deps, world.messageId, "delivered")
    )._unsafeUnwrap();
    expect(late).toMatchObject({ applied: false, status: "clicked" });

    const view = (await getMessage(world.deps, world.actor, world.messageId))._unsafeUnwrap();
    expect(view.links).toEqual([
      {
        url: `https://t.example/l/${first}`,
        original_url: "https://shop.example/o/A-1001",
        clicks: 2,
        first_clicked_at: expect.any(String),
        last_clicked_at: expect.any(String),
      },
      {
        url: `https://t.example/l/${second}`,
        original_url: "https://help.example/faq",
        clicks: 1,
        first_clicked_at: expect.any(String),
        last_clicked_at: expect.any(String),
      },
    ]);
  });

  it("the redirect target is always a stored URL: any other code is unknown", async () => {
    const world = await sentWithLinks();
    const stored = new Map(
      (await world.storage.links.listForMessage(world.org.organization.id, world.messageId)).map(
        (link) => [link.code, link.originalUrl],
      ),
    );
    const code = fc.oneof(
      fc.constantFrom(...world.codes),
      fc.stringMatching(/^[0-9A-Za-z]{12}$/),
      fc.string({ maxLength: 40 }),
      fc.constantFrom(...world.codes).map((c) => `${c}/../x`),
      fc.constantFrom(...world.codes).map((c) => encodeURIComponent(c).replace(/./, "%41")),
    );
    await fc.assert(
      fc.asyncProperty(code, fc.boolean(), async (asked, counted) => {
        const followed = await followLink(world.deps, asked, counted);
        const original = stored.get(asked);
        if (original === undefined) expect(followed).toEqual({ kind: "unknown" });
        else expect(followed).toMatchObject({ kind: "redirect", location: new URL(original).href });
      }),
      { numRuns: 300 },
    );
  });

  it("a campaign without tracking hands the text over byte for byte as rendered", async () => {
    const { provider, handed } = recordingProvider();
    const world = await sendWorld({ provider, links: HTTPS_BASE });
    const campaign = await world.campaign({ channel: "sms", template: TEMPLATE });
    expect(campaign.track_links).toBe(false);
    await world.profile({ phone_number: "+14155550100" });
    const sent = (await world.send(sendBody(campaign.campaign_id, "+14155550100")))._unsafeUnwrap();
    expect(handed[0]?.body).toBe(
      "Hi Ada, track https://shop.example/o/A-1001?t=secret or see https://help.example/faq",
    );
    expect(
      await world.storage.links.listForMessage(world.org.organization.id, sent.message_id),
    ).toEqual([]);
  });

  it("outside dev, tracking needs an https link base; in dev, http will do", async () => {
    const refusal = {
      type: "validation",
      issues: [expect.objectContaining({ path: "track_links", rule: "https_link_base" })],
    };
    for (const links of [
      undefined,
      { baseUrl: null, dev: false },
      { baseUrl: "http://t.example", dev: false },
    ]) {
      const world = await sendWorld({ links });
      const input = {
        name: "x",
        channel: "sms",
        category: "transactional",
        sender: "Acme",
        template: "Hi https://a.example",
        track_links: true,
      };
      expect(
        (await createCampaign(world.deps, world.actor, input))._unsafeUnwrapErr(),
      ).toMatchObject(refusal);
      const created = (
        await createCampaign(world.deps, world.actor, { ...input, track_links: false })
      )._unsafeUnwrap();
      const patched = await updateCampaign(world.deps, world.actor, created.campaign_id, {
        track_links: true,
      });
      expect(patched._unsafeUnwrapErr()).toMatchObject(refusal);
    }
    const dev = await sendWorld({ links: { baseUrl: "http://127.0.0.1:3000", dev: true } });
    expect((await dev.campaign({ track_links: true })).track_links).toBe(true);
  });
});
