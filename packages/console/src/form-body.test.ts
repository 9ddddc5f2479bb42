import { describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "./console-app.js";
import { parseFormBody } from "./form-body.js";
import { consoleWorld } from "./test-support/console-world.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("parseFormBody", () => {
  it("reads a form as URLSearchParams does: + as space, %XX, a stray % kept, repeated names", () => {
    const { fields, issues } = parseFormBody(
      bytes("name=Order+updates%21&topics=a&topics=b&odd=100%&empty=&bare&%C3%A9t%C3%A9=%E2%82%AC"),
    );
    expect([...fields]).toEqual([
      ...new URLSearchParams(
        "name=Order+updates%21&topics=a&topics=b&odd=100%&empty=&bare&%C3%A9t%C3%A9=%E2%82%AC",
      ),
    ]);
    expect(fields.get("été")).toBe("€");
    expect(issues).toEqual([]);
  });

  it("names each field whose bytes are no UTF-8 or that holds NUL, instead of turning them into U+FFFD", () => {
    const { fields, issues } = parseFormBody(
      bytes("name=%ED%A0%80&sender=ok&template=a%00b&description=%FF%FE&url=%F0%9F%98%80"),
    );
    expect(issues.map((issue) => issue.path)).toEqual(["name", "template", "description"]);
    expect(issues[0]?.message).toContain("lone UTF-16 surrogate");
    expect(issues[1]?.message).toContain("NUL");
    expect(fields.get("sender")).toBe("ok");
    expect(fields.get("url")).toBe("😀");
  });

  it("refuses a lone surrogate in a form handed over as a string", () => {
    const { issues } = parseFormBody("name=a\uD800b&sender=%F0%9F%98%80\uD83D\uDE00");
    expect(issues.map((issue) => issue.path)).toEqual(["name"]);
  });
});

describe("a form field that is no text", () => {
  it("is shown again with the problem beside it, what else was typed kept, and nothing stored", async () => {
    const world = await consoleWorld();
    const browser = await world.signIn();
    const post = (path: string, body: string) =>
      world.app.handle({
        method: "POST",
        url: path,
        headers: {
          cookie: `${SESSION_COOKIE}=${browser.cookie}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: bytes(`csrf_token=${browser.csrf}&${body}`),
      });
    const campaign = await post(
      "/campaigns",
      "name=Codes%ED%A0%80&channel=sms&category=otp&sender=Acme&template=Code+%7B%7Bpin%7D%7D%00&status=active",
    );
    expect(campaign.status).toBe(400);
    expect(campaign.body).toContain('id="name-error"');
    expect(campaign.body).toContain('id="template-error"');
    expect(campaign.body).not.toContain('id="sender-error"');
    expect(campaign.body).toContain('value="Acme"');
    expect(await world.deps.storage.campaigns.list(world.org.id)).toEqual([]);

    const webhook = await post(
      "/webhooks",
      "url=https%3A%2F%2Fhooks.example.com%2Fin&topics=message.sent&status=active&description=%ED%B0%80",
    );
    expect(webhook.status).toBe(400);
    expect(webhook.body).toContain('id="description-error"');
    expect(await world.deps.storage.webhooks.list(world.org.id)).toEqual([]);

    const key = await post("/keys", "name=%C0%AF&scopes=messages%3Asend");
    expect(key.status).toBe(400);
    expect(key.body).toContain('id="name-error"');
    expect(await world.deps.storage.apiKeys.list(world.org.id)).toEqual([]);
  });
});
