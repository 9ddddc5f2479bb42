import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import type { CampaignRecord } from "../ports.js";
import { isoAt } from "../shared/clock.js";
import { useCase } from "../shared/result.js";
import { updateCampaignInput } from "./campaign-input.js";
import { parseCampaignInput } from "./campaign-rules.js";
import { type CampaignView, toCampaignView } from "./campaign-view.js";
import { campaignNotFound, findCampaign } from "./get-campaign.js";

const MUTABLE: ReadonlyArray<keyof CampaignRecord> = [
  "name",
  "sender",
  "template",
  "ttlSeconds",
  "smsFallback",
  "status",
];

type Change = (current: CampaignRecord) => CampaignRecord | DomainError;

/**
 * Reads, changes and writes one campaign in a transaction; `updated_at` moves only when a
 * field actually changed.
 */
function changeCampaign(
  deps: Pick<Deps, "storage" | "clock">,
  actor: Actor,
  campaignId: string,
  change: Change,
): ResultAsync<CampaignView, DomainError> {
  return useCase(() =>
    deps.storage.transaction(async (tx) => {
      const current = await findCampaign(tx, actor.organizationId, campaignId);
      if (!current) return err(campaignNotFound(campaignId));
      const next = change(current);
      if ("type" in next) return err(next);
      if (MUTABLE.every((key) => next[key] === current[key])) return ok(toCampaignView(current));
      const updated = { ...next, updatedAt: isoAt(deps.clock.now()) };
      if (!(await tx.campaigns.update(updated))) return err(campaignNotFound(campaignId));
      return ok(toCampaignView(updated));
    }),
  );
}

/**
 * Changes a campaign's name, sender, template, TTL or SMS fallback. The rules are checked
 * against the stored channel and category, which never change.
 */
export function updateCampaign(
  deps: Pick<Deps, "storage" | "clock">,
  actor: Actor,
  campaignId: string,
  input: unknown,
): ResultAsync<CampaignView, DomainError> {
  return changeCampaign(deps, actor, campaignId, (current) => {
    const parsed = parseCampaignInput(updateCampaignInput, input, {
      channel: current.channel,
      category: current.category,
    });
    if (parsed.isErr()) return parsed.error;
    const { value: patch, sender } = parsed.value;
    return {
      ...current,
      name: patch.name ?? current.name,
      sender: sender ?? patch.sender ?? current.sender,
      template: patch.template ?? current.template,
      ttlSeconds: patch.ttl_seconds ?? current.ttlSeconds,
      smsFallback: patch.sms_fallback ?? current.smsFallback,
    };
  });
}

/** Makes a campaign triggerable (idempotent). */
export function activateCampaign(
  deps: Pick<Deps, "storage" | "clock">,
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
