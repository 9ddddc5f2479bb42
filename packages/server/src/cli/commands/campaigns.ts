import {
  activateCampaign,
  type CampaignView,
  createCampaign,
  deactivateCampaign,
  getCampaign,
  listCampaigns,
  RECOMMENDED_SENDING_WINDOW,
  toSendingWindowView,
  updateCampaign,
} from "@tidings/core";
import { err, ok } from "neverthrow";
import { type Command, ORG_OPTION } from "../command.js";
import { table } from "../output.js";
import { UsageError } from "../usage-error.js";
import { findOrganization, organizationCommand } from "./organization.js";

/** A campaign as one row of `campaigns list`. */
const campaignRow = (c: CampaignView): string[] => [
  c.campaign_id,
  c.status,
  `${c.channel}${c.sms_fallback ? "+sms" : ""}`,
  c.category,
  c.name,
];

/** `--ttl` as a number when it looks like one; otherwise as given, so validation names it. */
const ttlValue = (text: string | undefined): number | string | undefined =>
  text === undefined ? undefined : /^\s*-?[0-9]+\s*$/.test(text) ? Number(text) : text;

const SENDING_WINDOW_OPTION = {
  type: "string",
  value: "recommended|none|JSON",
  help: 'When its messages may reach a recipient, in the recipient\'s local time: "recommended" (mon-sat 09:00-20:00, public holidays skipped), "none" (any time), or a window as JSON, e.g. \'{"days":["mon","tue"],"start":"10:00","end":"18:00","skip_public_holidays":true}\'.',
} as const;

/** A campaign's sending window in one line: `mon-sat 09:00-20:00, holidays skipped`. */
const shownWindow = (window: CampaignView["sending_window"]): string =>
  window === null
    ? "none (any time)"
    : `${window.days.join(",")} ${window.start}-${window.end} recipient's local time${window.skip_public_holidays ? ", public holidays skipped" : ""}`;

/**
 * `--sending-window` as the API's `sending_window`: `recommended` is the window the console
 * offers promotional campaigns, `none` is null, anything else is read as JSON and left to the
 * API's validation, which names its fields under the flag (`--sending-window.start`).
 */
function sendingWindowValue(text: unknown): unknown {
  if (text === undefined) return undefined;
  if (text === "recommended") return toSendingWindowView(RECOMMENDED_SENDING_WINDOW);
  if (text === "none") return null;
  try {
    return JSON.parse(String(text)) as unknown;
  } catch {
    throw new UsageError(
      `--sending-window must be "recommended", "none" or a window as JSON; ${JSON.stringify(text)} is none of them.`,
    );
  }
}

/**
 * `campaigns create …`: the CMS side of an API campaign. It is inactive unless `--active`;
 * the answer carries its `campaign_id`, the public id that sends name.
 */
export const campaignsCreate: Command = {
  name: ["campaigns", "create"],
  summary: "Create an API campaign (inactive unless --active).",
  usage:
    "--org ORG --name NAME --channel viber|sms [--sms-fallback] [--sms-sender S] --category otp|transactional|promotional --sender S --template T [--ttl SECONDS] [--track-links] [--sending-window recommended|none|JSON] [--active]",
  options: {
    org: ORG_OPTION,
    name: { type: "string", help: "The campaign's name, for people; not shown to recipients." },
    channel: { type: "string", value: "viber|sms", help: "The channel it sends on." },
    "sms-fallback": {
      type: "boolean",
      help: "On viber: send an SMS when Viber cannot deliver (the template must fit an SMS).",
    },
    "sms-sender": {
      type: "string",
      help: "The sender name of the fallback SMS, when it differs from the Viber sender.",
    },
    category: {
      type: "string",
      value: "otp|transactional|promotional",
      help: "What it sends; decides the Viber rules and whether marketing consent is needed (promotional).",
    },
    sender: {
      type: "string",
      help: "The sender name recipients see (registered with the provider).",
    },
    template: {
      type: "string",
      help: "The text, with {{param}} placeholders each send fills, e.g. 'Your code is {{pin}}'.",
    },
    ttl: {
      type: "string",
      value: "SECONDS",
      help: "How long a message may wait for delivery before it expires.",
    },
    "track-links": {
      type: "boolean",
      help: "Replace the template's http(s) links with tracked short links ({link base}/l/{code}), so clicks are reported.",
    },
    "sending-window": SENDING_WINDOW_OPTION,
    active: {
      type: "boolean",
      help: "Create it active, ready to send (otherwise activate it later).",
    },
  },
  required: ["org", "name", "channel", "category", "sender", "template"],
  fieldFlags: { ttl_seconds: "ttl", status: "active", track_links: "track-links" },
  validate(flags) {
    sendingWindowValue(flags["sending-window"]);
  },
  async run(context) {
    const org = await findOrganization(context);
    if (org.isErr()) return err(org.error);
    const { flags } = context;
    const input: Record<string, unknown> = {
      name: flags.name,
      channel: flags.channel,
      category: flags.category,
      sender: flags.sender,
      template: flags.template,
      status: flags.active === true ? "active" : "inactive",
    };
    if (flags["sms-fallback"] === true) input.sms_fallback = true;
    if (flags["sms-sender"] !== undefined) input.sms_sender = flags["sms-sender"];
    if (flags["track-links"] === true) input.track_links = true;
    const ttl = ttlValue(flags.ttl as string | undefined);
    if (ttl !== undefined) input.ttl_seconds = ttl;
    const window = sendingWindowValue(flags["sending-window"]);
    if (window !== undefined) input.sending_window = window;
    const actor = { organizationId: org.value, apiKeyId: null };
    const created = await createCampaign(context.runtime.deps, actor, input);
    if (created.isErr()) return err(created.error);
    const campaign = created.value;
    return ok({
      json: campaign,
      human: `Created ${campaign.status} campaign ${campaign.campaign_id} (${campaign.name}).`,
    });
  },
};

/** `campaigns VERB ID --org ORG`: `change` applied to the campaign, and its new status said. */
const statusCommand = (
  verb: "activate" | "deactivate",
  summary: string,
  change: typeof activateCampaign,
): Command =>
  organizationCommand({
    name: ["campaigns", verb],
    summary,
    usage: "CAMPAIGN_ID --org ORG",
    positionals: { min: 1, max: 1 },
    async run(context, organizationId) {
      const actor = { organizationId, apiKeyId: null };
      const changed = await change(context.runtime.deps, actor, context.positionals[0] ?? "");
      if (changed.isErr()) return err(changed.error);
      const campaign = changed.value;
      return ok({
        json: campaign,
        human: `Campaign ${campaign.campaign_id} is ${campaign.status}.`,
      });
    },
  });

/**
 * `campaigns activate ID --org ORG`. Campaigns are stored per organization, so the command
 * names the organization as every other one does.
 */
export const campaignsActivate = statusCommand(
  "activate",
  "Activate a campaign: sends may name it.",
  activateCampaign,
);

/** `campaigns deactivate ID --org ORG`. */
export const campaignsDeactivate = statusCommand(
  "deactivate",
  "Deactivate a campaign: sends naming it are refused.",
  deactivateCampaign,
);

/** `campaigns list --org ORG`: every campaign, newest first, like the API. */
export const campaignsList = organizationCommand({
  name: ["campaigns", "list"],
  summary: "List an organization's campaigns, newest first.",
  usage: "--org ORG",
  async run(context, organizationId) {
    const actor = { organizationId, apiKeyId: null };
    const campaigns: CampaignView[] = [];
    let cursor: string | null = null;
    // Page by page until the last one; each page moves the cursor down, so this ends.
    do {
      const query: Record<string, string> =
        cursor === null ? { limit: "100" } : { limit: "100", cursor };
      const page = await listCampaigns(context.runtime.deps, actor, query);
      if (page.isErr()) return err(page.error);
      campaigns.push(...page.value.data);
      cursor = page.value.meta.next_cursor;
    } while (cursor !== null);
    return ok({
      json: { data: campaigns },
      human:
        campaigns.length === 0
          ? "No campaigns."
          : table(
              context.io.stdout,
              ["CAMPAIGN", "STATUS", "CHANNEL", "CATEGORY", "NAME"],
              campaigns.map(campaignRow),
            ),
    });
  },
});

/** `campaigns get ID --org ORG`. */
export const campaignsGet = organizationCommand({
  name: ["campaigns", "get"],
  summary: "Show a campaign.",
  usage: "CAMPAIGN_ID --org ORG",
  positionals: { min: 1, max: 1 },
  async run(context, organizationId) {
    const actor = { organizationId, apiKeyId: null };
    const found = await getCampaign(context.runtime.deps, actor, context.positionals[0] ?? "");
    if (found.isErr()) return err(found.error);
    const c = found.value;
    return ok({
      json: c,
      human: [
        campaignRow(c).join("  "),
        `  sender: ${JSON.stringify(c.sender)}  ttl: ${c.ttl_seconds} s`,
        `  template: ${JSON.stringify(c.template)}`,
        `  sending window: ${shownWindow(c.sending_window)}`,
        `  created ${c.created_at}, updated ${c.updated_at}`,
      ].join("\n"),
    });
  },
});

/**
 * `campaigns update ID --org ORG [--name] [--channel] [--category] [--template] [--sender]
 * [--ttl] [--sms-fallback|--no-sms-fallback]`: every field the API's PATCH takes, under the
 * same rules (channel and category only while the campaign is inactive).
 */
export const campaignsUpdate: Command = {
  name: ["campaigns", "update"],
  summary:
    "Change a campaign; channel and category only while it is inactive. The next send uses it.",
  usage:
    "CAMPAIGN_ID --org ORG [--name NAME] [--channel viber|sms] [--category otp|transactional|promotional] [--sender S] [--template T] [--ttl SECONDS] [--sms-fallback|--no-sms-fallback] [--sms-sender S|--no-sms-sender] [--track-links|--no-track-links] [--sending-window recommended|none|JSON]",
  options: {
    org: ORG_OPTION,
    name: { type: "string", help: "A new name." },
    channel: {
      type: "string",
      value: "viber|sms",
      help: "A new channel; only while the campaign is inactive.",
    },
    category: {
      type: "string",
      value: "otp|transactional|promotional",
      help: "A new category; only while the campaign is inactive.",
    },
    sender: { type: "string", help: "A new sender name." },
    template: { type: "string", help: "A new template; the next send uses it." },
    ttl: { type: "string", value: "SECONDS", help: "A new time to live." },
    "sms-fallback": { type: "boolean", help: "Turn the SMS fallback on (viber campaigns)." },
    "no-sms-fallback": { type: "boolean", help: "Turn the SMS fallback off." },
    "sms-sender": { type: "string", help: "A new sender name for the fallback SMS." },
    "no-sms-sender": {
      type: "boolean",
      help: "Send the fallback SMS from the campaign's sender again.",
    },
    "track-links": {
      type: "boolean",
      help: "Turn link tracking on: the next sends carry short links.",
    },
    "no-track-links": { type: "boolean", help: "Turn link tracking off." },
    "sending-window": SENDING_WINDOW_OPTION,
  },
  required: ["org"],
  fieldFlags: { ttl_seconds: "ttl", track_links: "track-links" },
  positionals: { min: 1, max: 1 },
  validate(flags) {
    if (flags["sms-fallback"] === true && flags["no-sms-fallback"] === true) {
      throw new UsageError("--sms-fallback and --no-sms-fallback contradict each other.");
    }
    if (flags["sms-sender"] !== undefined && flags["no-sms-sender"] === true) {
      throw new UsageError("--sms-sender and --no-sms-sender contradict each other.");
    }
    if (flags["track-links"] === true && flags["no-track-links"] === true) {
      throw new UsageError("--track-links and --no-track-links contradict each other.");
    }
    const changes = [
      "name",
      "channel",
      "category",
      "sender",
      "template",
      "ttl",
      "sms-sender",
      "sending-window",
    ];
    if (
      !changes.some((name) => flags[name] !== undefined) &&
      flags["sms-fallback"] === undefined &&
      flags["no-sms-fallback"] === undefined &&
      flags["no-sms-sender"] === undefined &&
      flags["track-links"] === undefined &&
      flags["no-track-links"] === undefined
    ) {
      throw new UsageError("Nothing to change: give at least one of the options.");
    }
    sendingWindowValue(flags["sending-window"]);
  },
  async run(context) {
    const org = await findOrganization(context);
    if (org.isErr()) return err(org.error);
    const { flags } = context;
    const input: Record<string, unknown> = {};
    for (const name of ["name", "channel", "category", "sender", "template"] as const) {
      if (flags[name] !== undefined) input[name] = flags[name];
    }
    const ttl = ttlValue(flags.ttl as string | undefined);
    if (ttl !== undefined) input.ttl_seconds = ttl;
    if (flags["sms-fallback"] === true) input.sms_fallback = true;
    if (flags["no-sms-fallback"] === true) input.sms_fallback = false;
    if (flags["sms-sender"] !== undefined) input.sms_sender = flags["sms-sender"];
    if (flags["no-sms-sender"] === true) input.sms_sender = null;
    if (flags["track-links"] === true) input.track_links = true;
    if (flags["no-track-links"] === true) input.track_links = false;
    const window = sendingWindowValue(flags["sending-window"]);
    if (window !== undefined) input.sending_window = window;
    const actor = { organizationId: org.value, apiKeyId: null };
    const updated = await updateCampaign(
      context.runtime.deps,
      actor,
      context.positionals[0] ?? "",
      input,
    );
    if (updated.isErr()) return err(updated.error);
    return ok({
      json: updated.value,
      human: `Updated campaign ${updated.value.campaign_id}: ${campaignRow(updated.value).join("  ")}`,
    });
  },
};
