import { err, ok, type ResultAsync } from "neverthrow";
import * as v from "valibot";
import type { Actor, Deps } from "../deps.js";
import { type ConflictError, type DomainError, type Issue, validationError } from "../errors.js";
import { trackingRefusal } from "../links/link-base.js";
import type { CampaignRecord } from "../ports.js";
import { toSendingWindow } from "../schedule/sending-window.js";
import { isoAt } from "../support/clock.js";
import { isPrefixedId } from "../support/ids.js";
import { toIssues } from "../support/parse.js";
import { useCase } from "../support/result.js";
import { updateCampaignInput } from "./campaign-input.js";
import { checkCampaignRules } from "./campaign-rules.js";
import { type CampaignView, toCampaignView } from "./campaign-view.js";
import { campaignNotFound, findCampaign } from "./get-campaign.js";
import { checkSenderFree } from "./sender-taken.js";
import { textLimitIssue } from "./text-limit.js";

const MUTABLE: ReadonlyArray<keyof CampaignRecord> = [
  "name",
  "channel",
  "category",
  "sender",
  "template",
  "ttlSeconds",
  "smsFallback",
  "smsSender",
  "trackLinks",
  "allowedCountries",
  "status",
];

type Change = (current: CampaignRecord) => CampaignRecord | DomainError;

/**
 * Reads, changes and writes one campaign in a transaction, holding it against concurrent
 * writers from before the read, so of two concurrent changes neither loses the other's field
 * (the last one wins where both change the same field). `updated_at` moves only when a field
 * actually changed.
 */
function changeCampaign(
  deps: Pick<Deps, "storage" | "clock"> & Partial<Pick<Deps, "provider">>,
  actor: Actor,
  campaignId: string,
  change: Change,
): ResultAsync<CampaignView, DomainError> {
  return useCase("changeCampaign", () =>
    deps.storage.transaction(async (tx) => {
      if (isPrefixedId(campaignId, "cmp"))
        await tx.campaigns.lock(actor.organizationId, campaignId);
      const current = await findCampaign(tx, actor.organizationId, campaignId);
      if (!current) return err(campaignNotFound(campaignId));
      const next = change(current);
      if ("type" in next) return err(next);
      const same =
        MUTABLE.every((key) => next[key] === current[key]) &&
        JSON.stringify(next.sendingWindow) === JSON.stringify(current.sendingWindow);
      if (same) return ok(toCampaignView(current));
      // Limits at the door: an active campaign's template must fit its providers' text limit.
      const tooLong = next.status === "active" ? textLimitIssue(deps, next) : null;
      if (tooLong !== null) return err(validationError([tooLong]));
      const taken = await checkSenderFree(tx, actor.organizationId, next);
      if (taken !== null) return err(taken);
      const updated = { ...next, updatedAt: isoAt(deps.clock.now()) };
      if (!(await tx.campaigns.update(updated))) return err(campaignNotFound(campaignId));
      return ok(toCampaignView(updated));
    }),
  );
}

/**
 * Changes any of a campaign's name, sender, template, TTL, SMS fallback and its SMS sender,
 * link tracking, and its channel
 * and category while it is inactive (409 `campaign_active` otherwise). The cross-field rules
 * are checked on the campaign as it would be: a new category checks the stored template, a new
 * channel the stored sender.
 */
export function updateCampaign(
  deps: Pick<Deps, "storage" | "clock" | "links"> & Partial<Pick<Deps, "provider">>,
  actor: Actor,
  campaignId: string,
  input: unknown,
): ResultAsync<CampaignView, DomainError> {
  return changeCampaign(deps, actor, campaignId, (current) => {
    const parsed = v.safeParse(updateCampaignInput, input, { abortEarly: false });
    const issues: Issue[] = parsed.success ? [] : toIssues(parsed.issues);
    if (!parsed.success) return validationError(issues);
    const patch = parsed.output;
    const channel = patch.channel ?? current.channel;
    const category = patch.category ?? current.category;
    if (
      current.status === "active" &&
      (channel !== current.channel || category !== current.category)
    ) {
      return campaignActive(current.id);
    }
    // A channel that leaves Viber drops the fallback unless the patch asks for it (a 400).
    const smsFallback = patch.sms_fallback ?? (channel === "viber" ? current.smsFallback : false);
    const rules = checkCampaignRules({
      channel,
      category,
      smsFallback,
      sender: patch.sender ?? (channel !== current.channel ? current.sender : undefined),
      template: patch.template ?? (category !== current.category ? current.template : undefined),
      smsSender: patch.sms_sender ?? undefined,
    });
    const refusal =
      patch.track_links === true && !current.trackLinks ? trackingRefusal(deps.links) : null;
    const problems = refusal === null ? rules.issues : [...rules.issues, refusal];
    if (problems.length > 0) return validationError(problems);
    return {
      ...current,
      name: patch.name ?? current.name,
      channel,
      category,
      sender: rules.sender ?? current.sender,
      template: patch.template ?? current.template,
      ttlSeconds: patch.ttl_seconds ?? current.ttlSeconds,
      smsFallback,
      // A channel that leaves Viber drops the fallback's sender unless the patch sets one (a 400).
      smsSender:
        patch.sms_sender === undefined
          ? channel === "viber"
            ? current.smsSender
            : null
          : (rules.smsSender ?? null),
      trackLinks: patch.track_links ?? current.trackLinks,
      sendingWindow:
        patch.sending_window === undefined
          ? current.sendingWindow
          : toSendingWindow(patch.sending_window),
      allowedCountries:
        patch.allowed_countries === undefined ? current.allowedCountries : patch.allowed_countries,
    };
  });
}

const campaignActive = (id: string): ConflictError => ({
  type: "conflict",
  code: "campaign_active",
  message: "The channel and category of an active campaign cannot change; deactivate it first.",
  conflicts: [{ id, reason: "active" }],
});

/** Makes a campaign triggerable (idempotent). */
export function activateCampaign(
  deps: Pick<Deps, "storage" | "clock"> & Partial<Pick<Deps, "provider">>,
  actor: Actor,
  campaignId: string,
): ResultAsync<CampaignView, DomainError> {
  return changeCampaign(deps, actor, campaignId, (current) => ({ ...current, status: "active" }));
}

/** Stops a campaign from being triggered (idempotent); sends already made are unaffected. */
export function deactivateCampaign(
  deps: Pick<Deps, "storage" | "clock">,
  actor: Actor,
  campaignId: string,
): ResultAsync<CampaignView, DomainError> {
  return changeCampaign(deps, actor, campaignId, (current) => ({
    ...current,
    status: "inactive",
  }));
}
