import { describe, expect, it } from "vitest";
import { consoleWorld, HOSTILE } from "../test-support/console-world.js";

describe("message pages", () => {
  it("finds a message by id and shows its timeline", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const campaign = await world.campaign();
    const messageId = await world.send(world.org.id, campaign.campaign_id, {
      params: { order: "<b>7</b>" },
      client_reference: HOSTILE,
    });
    const search = await world.get(browser, `/messages?q=${messageId.toUpperCase()}`);
    expect(search.status).toBe(303);
    expect(search.headers.location).toBe(`/console/messages/${messageId}`);
    const page = await world.get(browser, `/messages/${messageId}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain("<strong>sent</strong>");
    expect(page.body).not.toContain("<script>alert");
    const unknown = "01900000-0000-7000-8000-000000000000";
    const notFound = await world.get(browser, `/messages?q=${unknown}&by=id`);
    expect(notFound.status).toBe(404);
    expect(notFound.body).toContain('id="q-error"');
    expect(notFound.body).toContain(`value="${unknown}"`);
  });

  it("lists a message's tracked links with their clicks, the original without its query", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const campaign = await world.campaign(world.org.id, {
      template: "Order {{order}}: https://shop.example/o/{{order}}?token=secret",
      track_links: true,
    });
    const messageId = await world.send(world.org.id, campaign.campaign_id);
    const [link] = await world.deps.storage.links.listForMessage(world.org.id, messageId);
    expect(link).toBeDefined();
    await world.deps.storage.links.recordClick(link?.code ?? "", "2026-05-01T12:00:01.000Z");
    const page = await world.get(browser, `/messages/${messageId}`);
    expect(page.body).toContain("Tracked links");
    expect(page.body).toContain(`https://t.example.com/l/${link?.code}`);
    expect(page.body).toContain("https://shop.example/o/");
    expect(page.body).not.toContain("token=secret");
    expect(page.body).toMatch(/<td>1<\/td>/);
  });

  it("shows the provider carrying the message and its id there, and a failure's provider code", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const campaign = await world.campaign();
    const messageId = await world.send(world.org.id, campaign.campaign_id);
    const before = await world.get(browser, `/messages/${messageId}`);
    expect(before.body).toMatch(/Provider<\/dt>\s*<dd[^>]*>sandbox/);
    const sid = "SM0123456789abcdef0123456789abcdef";
    const message = await world.deps.storage.messages.getById(messageId);
    await world.deps.storage.messages.recordLeg(messageId, message!.channel, {
      provider: "twilio",
      providerMessageId: sid,
    });
    await world.deps.storage.messages.advance(messageId, ["sent"], {
      status: "failed",
      error: {
        code: "upstream_failed",
        message: "Unreachable handset.",
        provider: "twilio",
        provider_code: "30003",
      },
      updatedAt: new Date(world.clock.now()).toISOString(),
    });
    const page = await world.get(browser, `/messages/${messageId}`);
    expect(page.body).toContain(sid);
    expect(page.body).toContain("upstream_failed (twilio 30003): Unreachable handset.");
    // The list names each message's provider too.
    const other = await world.send(world.org.id, campaign.campaign_id);
    const list = await world.get(browser, "/messages");
    const cellsOf = (id: string) =>
      list.body.split("<tr>").find((row) => row.includes(`/messages/${id}"`)) ?? "";
    expect(cellsOf(messageId)).toContain("<td>twilio</td>");
    expect(cellsOf(other)).toContain("<td>sandbox</td>");
  });

  it("finds messages by phone number and by client reference, newest first, by status and campaign, in pages with the filters kept", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const orders = await world.campaign(world.org.id, { name: "Orders" });
    const promos = await world.campaign(world.org.id, { name: "Promos" });
    const sent: string[] = [];
    for (let i = 0; i < 30; i += 1) {
      const campaign = i % 2 === 0 ? orders : promos;
      sent.push(
        await world.send(
          world.org.id,
          campaign.campaign_id,
          { client_reference: i === 7 ? HOSTILE : `order-${i}` },
          i < 28 ? "+14155550002" : "+14155550003",
        ),
      );
    }
    const uuidReference = "0f8fad5b-d9cb-469f-a165-70867728950e";
    const byUuid = await world.send(world.org.id, orders.campaign_id, {
      client_reference: uuidReference,
    });
    const theirCampaign = await world.campaign(world.otherOrg.id);
    const theirs = await world.send(world.otherOrg.id, theirCampaign.campaign_id, {
      client_reference: "order-1",
    });
    const ids = (body: string) =>
      [...body.matchAll(/href="\/console\/messages\/([0-9a-f-]{36})"/g)].map((m) => m[1]);

    // By phone, written any way a person would: newest first, 25 a page.
    const byPhone = await world.get(
      browser,
      `/messages?q=${encodeURIComponent("+1 (415) 555-0002")}`,
    );
    expect(byPhone.status).toBe(200);
    expect(ids(byPhone.body)).toEqual([byUuid, ...sent.slice(0, 28).reverse()].slice(0, 25));
    const next =
      /href="([^"]+)" rel="next"/.exec(byPhone.body)?.[1]?.replaceAll("&amp;", "&") ?? "";
    expect(next).toContain("q=%2B1+%28415%29+555-0002");
    const page2 = await world.get(browser, next.replace("/console", ""));
    expect(ids(page2.body)).toEqual(sent.slice(0, 4).reverse());
    expect(page2.body).toContain(">First page</a>");

    // By client reference: shown as text, never run; another organization's is not found.
    const hostile = await world.get(browser, `/messages?q=${encodeURIComponent(HOSTILE)}`);
    expect(ids(hostile.body)).toEqual([sent[7]]);
    expect(hostile.body).not.toContain("<script>alert");
    expect(ids((await world.get(browser, "/messages?q=order-1")).body)).toEqual([sent[1]]);
    expect(ids((await world.get(browser, "/messages?q=order-1")).body)).not.toContain(theirs);
    // A UUID that is no message's id is looked up as a client reference.
    expect(ids((await world.get(browser, `/messages?q=${uuidReference}`)).body)).toEqual([byUuid]);
    // Chosen explicitly, `+…` is a client reference too.
    const asReference = await world.get(browser, "/messages?q=%2B14155550003&by=client_reference");
    expect(asReference.body).toContain("No message matches.");

    // By campaign (the campaign page links here) and status, combined with the search.
    const ofPromos = await world.get(
      browser,
      `/messages?campaign_id=${promos.campaign_id}&q=%2B14155550003`,
    );
    expect(ids(ofPromos.body)).toEqual([sent[29]]);
    expect(ofPromos.body).toContain("Promos");
    // The form has a campaign filter: every campaign of the organization, this one chosen.
    expect(ofPromos.body).toMatch(/<select[^>]*name="campaign_id"/);
    expect(ofPromos.body).toContain(
      `<option value="${promos.campaign_id}" selected>Promos</option>`,
    );
    expect(ofPromos.body).toContain(`<option value="${orders.campaign_id}">Orders</option>`);
    expect(ofPromos.body).not.toContain(theirCampaign.campaign_id);
    const ofOrders = await world.get(browser, `/messages?campaign_id=${orders.campaign_id}`);
    expect(ids(ofOrders.body).length).toBeGreaterThan(0);
    expect(ofOrders.body).toContain(
      `<option value="${orders.campaign_id}" selected>Orders</option>`,
    );
    const unknown = await world.get(browser, "/messages?campaign_id=cmp_nope");
    expect(unknown.body).toContain("No message matches.");
    const sentOnly = await world.get(browser, "/messages?status=sent&q=%2B14155550003");
    expect(ids(sentOnly.body)).toEqual([sent[29], sent[28]]);
    expect(sentOnly.body).toMatch(/<option value="sent" selected>/);
    expect((await world.get(browser, "/messages?status=failed")).body).toContain(
      "No message matches.",
    );

    // Refused searches say why beside the field, and keep what was typed.
    const badPhone = await world.get(browser, "/messages?q=%2B12&by=phone_number");
    expect(badPhone.status).toBe(400);
    expect(badPhone.body).toContain('id="q-error"');
    expect(badPhone.body).toContain('value="+12"');
    const badStatus = await world.get(browser, "/messages?status=lost");
    expect(badStatus.status).toBe(400);
    expect(badStatus.body).toContain('id="status-error"');
    const stale = await world.get(browser, "/messages?cursor=zzz");
    expect(stale.status).toBe(400);
    expect(stale.body).toContain("This page link is out of date");
    const notText = await world.get(browser, "/messages?q=%ED%A0%80&by=client_reference");
    expect(notText.status).toBe(400);
    expect(notText.body).toContain('id="q-error"');
    expect(notText.body).toContain("lone UTF-16 surrogate");
  });

  it("lists scheduled messages with their release time; a cancel button cancels one", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const campaign = await world.campaign();
    const sendAt = "2026-06-02T09:00:00.000Z";
    const held = await world.send(world.org.id, campaign.campaign_id, { send_at: sendAt });
    const other = await world.send(world.org.id, campaign.campaign_id);
    const list = await world.get(browser, "/messages?status=scheduled");
    expect(list.body).toContain(`/messages/${held}"`);
    expect(list.body).not.toContain(`/messages/${other}"`);
    expect(list.body).toContain(`datetime="${sendAt}"`);
    expect((await world.get(browser, "/messages")).body).toContain("?status=scheduled");
    const page = await world.get(browser, `/messages/${held}`);
    expect(page.body).toContain("Release time");
    expect(page.body).toContain(">Cancel message</button>");
    expect(page.body).not.toContain("data-refresh");
    const cancelled = await world.post(browser, `/messages/${held}/cancel`);
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.location).toBe(`/console/messages/${held}?notice=message_cancelled`);
    expect((await world.deps.storage.messages.getById(held))?.status).toBe("cancelled");
    const after = await world.get(browser, `/messages/${held}?notice=message_cancelled`);
    expect(after.body).toContain("Message cancelled: it will never be sent.");
    expect(after.body).not.toContain(">Cancel message</button>");
    // A message no longer scheduled is not cancelled, and the page says so.
    const again = await world.post(browser, `/messages/${other}/cancel`);
    expect(again.headers.location).toBe(`/console/messages/${other}?notice=message_not_scheduled`);
    expect((await world.deps.storage.messages.getById(other))?.status).toBe("sent");
    const unknown = await world.post(
      browser,
      "/messages/01900000-0000-7000-8000-000000000000/cancel",
    );
    expect(unknown.status).toBe(404);
  });
});
