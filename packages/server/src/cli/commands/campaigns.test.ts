import { describe, expect, it } from "vitest";
import { Captured, cliWorkspaceEach, runCli } from "../../testing/run-cli.js";

const world = cliWorkspaceEach();
const { cli } = world;

/** `--name value` and so on, one pair per field. */
const flagsOf = (fields: Record<string, string>): string[] =>
  Object.entries(fields).flatMap(([flag, value]) => [`--${flag}`, value]);

/** `campaigns create` of a valid OTP campaign but for the fields given, then `extra`. */
const create = (fields: Record<string, string>, ...extra: string[]) =>
  cli(
    "campaigns",
    "create",
    "--org",
    world.org,
    ...flagsOf({
      name: "Login code",
      channel: "viber",
      category: "otp",
      sender: "Acme",
      template: "Your code is {{pin}}",
      ...fields,
    }),
    ...extra,
  );

const otp = (...extra: string[]) => create({}, "--sms-fallback", "--json", ...extra);

/** `campaigns update ID` of the world's organization with `args`. */
const update = (id: string, ...args: string[]) =>
  cli("campaigns", "update", id, "--org", world.org, ...args);

describe("campaigns", () => {
  it("creates an inactive campaign unless --active, with its campaign_id", async () => {
    const inactive = await otp();
    expect(inactive.code).toBe(0);
    expect(inactive.json()).toMatchObject({
      campaign_id: expect.stringMatching(/^cmp_/),
      status: "inactive",
      channel: "viber",
      sms_fallback: true,
      category: "otp",
      ttl_seconds: 86_400,
    });
    expect((await otp("--active", "--ttl", "600")).json()).toMatchObject({
      status: "active",
      ttl_seconds: 600,
    });
  });

  it("activates, deactivates and lists the organization's campaigns", async () => {
    const id = (await otp()).json<{ campaign_id: string }>().campaign_id;
    expect(
      (await cli("campaigns", "activate", id, "--org", world.org, "--json")).json(),
    ).toMatchObject({
      status: "active",
    });
    expect(
      (await cli("campaigns", "deactivate", id, "--org", world.org, "--json")).json(),
    ).toMatchObject({ status: "inactive" });
    const listed = (await cli("campaigns", "list", "--org", world.org, "--json")).json<{
      data: unknown[];
    }>();
    expect(listed.data).toEqual([expect.objectContaining({ campaign_id: id, status: "inactive" })]);
  });

  it("prints every issue of an invalid campaign and exits 1", async () => {
    const run = await create({ name: "Bad", channel: "fax", template: "No pin here", ttl: "soon" });
    expect(run.code).toBe(1);
    // Named by the flags that were typed, not by the API's field names.
    expect(run.stderr).toMatch(/^ {2}--channel: /m);
    expect(run.stderr).toMatch(/^ {2}--ttl: /m);
    expect(run.stderr).not.toContain("ttl_seconds");
  });

  it("lists campaigns as a table with a header on a terminal, tab-separated off one", async () => {
    await otp("--active");
    const terminal = Object.assign(new Captured(), { isTTY: true });
    await runCli(["campaigns", "list", "--org", world.org], world.workspace.env, {
      stdout: terminal,
    });
    const [header, row] = terminal.text().trimEnd().split("\n");
    expect(header).toMatch(/^CAMPAIGN\s+STATUS\s+CHANNEL\s+CATEGORY\s+NAME$/);
    expect(row).toMatch(/^cmp_\w+\s+active\s+viber\+sms\s+otp\s+Login code$/);
    expect(header?.indexOf("STATUS")).toBe(row?.indexOf("active"));
    const piped = await cli("campaigns", "list", "--org", world.org);
    expect(piped.stdout.trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^cmp_\w+\tactive\tviber\+sms\totp\tLogin code$/),
    ]);
  });

  it("refuses an OTP template without {{pin}}", async () => {
    const run = await create({ name: "Bad", channel: "sms", template: "Hello {{name}}" }, "--json");
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr)).toMatchObject({
      error: { issues: [expect.objectContaining({ path: "template" })] },
    });
  });

  it("--sms-sender sets a Viber campaign's fallback sender; update changes or clears it", async () => {
    const created = await otp("--sms-sender", "AcmeSMS");
    expect(created.code).toBe(0);
    const { campaign_id, sms_sender } = created.json<{ campaign_id: string; sms_sender: string }>();
    expect(sms_sender).toBe("AcmeSMS");
    const changed = await update(campaign_id, "--sms-sender", "+14155552671", "--json");
    expect(changed.json()).toMatchObject({ sms_sender: "+14155552671" });
    const cleared = await update(campaign_id, "--no-sms-sender", "--json");
    expect(cleared.json()).toMatchObject({ sms_sender: null });
    const both = await update(campaign_id, "--sms-sender", "X", "--no-sms-sender");
    expect(both.code).toBe(2);
    const bad = await otp("--sms-sender", "Not a valid sender id");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("sms-sender");
  });

  it("--track-links needs an https link base; update turns it on and off", async () => {
    const refused = await otp("--track-links");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("track-links");
    expect(refused.stderr).toContain("TIDINGS_LINK_BASE_URL");
    const env = { ...world.workspace.env, TIDINGS_LINK_BASE_URL: "https://t.example.com" };
    const created = await runCli(
      [
        "campaigns",
        "create",
        "--org",
        world.org,
        ...flagsOf({ name: "Shop", channel: "sms" }),
        ...flagsOf({
          category: "transactional",
          sender: "Acme",
          template: "See https://shop.example",
        }),
        "--track-links",
        "--json",
      ],
      env,
    );
    expect(created.code).toBe(0);
    const { campaign_id, track_links } = created.json<{
      campaign_id: string;
      track_links: boolean;
    }>();
    expect(track_links).toBe(true);
    const off = await update(campaign_id, "--no-track-links", "--json");
    expect(off.json()).toMatchObject({ track_links: false });
    const on = await runCli(
      ["campaigns", "update", campaign_id, "--org", world.org, "--track-links", "--json"],
      env,
    );
    expect(on.json()).toMatchObject({ track_links: true });
    expect((await update(campaign_id, "--track-links", "--no-track-links")).code).toBe(2);
  });

  it("answers campaign_not_found for an unknown id", async () => {
    const run = await cli("campaigns", "activate", "cmp_nope", "--org", world.org);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("campaign_not_found");
  });

  it("update changes every field the API's PATCH takes, and get shows the result", async () => {
    const id = (await otp()).json<{ campaign_id: string }>().campaign_id;
    const updated = await update(
      id,
      ...flagsOf({ name: "Codes", template: "Code: {{pin}}", sender: "Tidings", ttl: "300" }),
      ...flagsOf({ channel: "sms", category: "otp" }),
      "--no-sms-fallback",
      "--json",
    );
    expect(updated.code).toBe(0);
    expect(updated.json()).toMatchObject({
      name: "Codes",
      template: "Code: {{pin}}",
      ttl_seconds: 300,
      sms_fallback: false,
      channel: "sms",
    });
    const got = await cli("campaigns", "get", id, "--org", world.org, "--json");
    expect(got.json()).toEqual(updated.json());
    const human = await cli("campaigns", "get", id, "--org", world.org);
    expect(human.stdout).toContain("Code: {{pin}}");
  });

  it("update refuses a channel change of an active campaign, a bad template and no change at all", async () => {
    const id = (await otp("--active")).json<{ campaign_id: string }>().campaign_id;
    const active = await update(id, "--channel", "sms");
    expect(active.code).toBe(1);
    expect(active.stderr).toContain("campaign_active");
    const pinless = await update(id, "--template", "Hi", "--json");
    expect(pinless.code).toBe(1);
    expect(JSON.parse(pinless.stderr)).toMatchObject({
      error: { issues: [expect.objectContaining({ path: "template" })] },
    });
    expect((await update(id)).code).toBe(2);
    const both = await update(id, "--sms-fallback", "--no-sms-fallback");
    expect(both.code).toBe(2);
    expect((await cli("campaigns", "get", "cmp_nope", "--org", world.org)).stderr).toContain(
      "campaign_not_found",
    );
  });

  it("lists newest first, like the API", async () => {
    const first = (await otp()).json<{ campaign_id: string }>().campaign_id;
    const second = (await otp()).json<{ campaign_id: string }>().campaign_id;
    const listed = (await cli("campaigns", "list", "--org", world.org, "--json")).json<{
      data: Array<{ campaign_id: string }>;
    }>();
    expect(listed.data.map((c) => c.campaign_id)).toEqual([second, first]);
  });

  it("--sending-window takes recommended, none or JSON on create and update; get shows it", async () => {
    const promo = (...extra: string[]) =>
      create({ category: "promotional", template: "Sale {{code}}" }, "--json", ...extra);
    const recommended = await promo("--sending-window", "recommended");
    expect(recommended.code).toBe(0);
    const id = recommended.json<{ campaign_id: string }>().campaign_id;
    expect(recommended.json()).toMatchObject({
      sending_window: {
        days: ["mon", "tue", "wed", "thu", "fri", "sat"],
        start: "09:00",
        end: "20:00",
        skip_public_holidays: true,
      },
    });
    // The API's default stays: no window unless asked for.
    expect((await promo()).json()).toMatchObject({ sending_window: null });
    const own = await update(
      id,
      "--sending-window",
      '{"days":["sun","sat"],"start":"10:00","end":"24:00"}',
      "--json",
    );
    expect(own.json()).toMatchObject({
      sending_window: { days: ["sun", "sat"], start: "10:00", end: "24:00" },
    });
    const shown = await cli("campaigns", "get", id, "--org", world.org);
    expect(shown.stdout).toContain("sending window: sun,sat 10:00-24:00 recipient's local time");
    expect((await update(id, "--sending-window", "none", "--json")).json()).toMatchObject({
      sending_window: null,
    });
    expect((await cli("campaigns", "get", id, "--org", world.org)).stdout).toContain(
      "sending window: none (any time)",
    );

    // Bad windows: the field named under the flag; text that is no JSON is a usage error.
    const backwards = await update(
      id,
      "--sending-window",
      '{"days":["mon"],"start":"20:00","end":"09:00"}',
    );
    expect(backwards.code).toBe(1);
    expect(backwards.stderr).toMatch(/^ {2}--sending-window\.end: /m);
    const unknownDay = await promo(
      "--sending-window",
      '{"days":["funday"],"start":"09:00","end":"10:00"}',
    );
    expect(unknownDay.code).toBe(1);
    expect(JSON.parse(unknownDay.stderr)).toMatchObject({
      error: {
        issues: [
          expect.objectContaining({ path: "sending_window.days[0]", flag: "--sending-window" }),
        ],
      },
    });
    const notJson = await promo("--sending-window", "weekdays");
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("--sending-window");
  });
});
