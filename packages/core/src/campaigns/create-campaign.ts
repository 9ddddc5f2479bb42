import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import { type DomainError, validationError } from "../errors.js";
import { trackingRefusal } from "../links/link-base.js";
import type { CampaignRecord } from "../ports.js";
import { toSendingWindow } from "../schedule/sending-window.js";
import { isoAt } from "../support/clock.js";
import { useCase } from "../support/result.js";
import { createCampaignInput, DEFAULT_TTL_SECONDS } from "./campaign-input.js";
import { parseCampaignInput } from "./campaign-rules.js";
import { type CampaignView, toCampaignView } from "./campaign-view.js";
import { checkSenderFree } from "./sender-taken.js";
import { textLimitIssue } from "./text-limit.js";

/** Creates an API campaign (inactive unless told otherwise), every input issue listed at once. */
export function createCampaign(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "links"> & Partial<Pick<Deps, "provider">>,
  actor: Actor,
  input: unknown,
): ResultAsync<CampaignView, DomainError> {
  return useCase("createCampaign", async () => {
    const parsed = parseCampaignInput(createCampaignInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const { value: body, sender, smsSender } = parsed.value;
    const refusal = body.track_links === true ? trackingRefusal(deps.links) : null;
    if (refusal !== null) return err(validationError([refusal]));
    const now = isoAt(deps.clock.now());
    const campaign: CampaignRecord = {
      id: deps.ids.prefixed("cmp"),
      organizationId: actor.organizationId,
      name: body.name,
      channel: body.channel,
      smsFallback: body.channel === "viber" && body.sms_fallback === true,
      category: body.category,
      sender: sender ?? body.sender,
      template: body.template,
      ttlSeconds: body.ttl_seconds ?? DEFAULT_TTL_SECONDS,
      status: body.status ?? "inactive",
      createdAt: now,
      updatedAt: now,
      smsSender: body.channel === "viber" ? (smsSender ?? null) : null,
      trackLinks: body.track_links ?? false,
      sendingWindow: toSendingWindow(body.sending_window ?? null),
      allowedCountries: body.allowed_countries ?? null,
    };
    // Limits at the door: an active campaign's template must fit its providers' text limit.
    const tooLong = campaign.status === "active" ? textLimitIssue(deps, campaign) : null;
    if (tooLong !== null) return err(validationError([tooLong]));
    const taken = await checkSenderFree(deps.storage, actor.organizationId, campaign);
    if (taken !== null) return err(taken);
    await deps.storage.campaigns.insert(campaign);
    return ok(toCampaignView(campaign));
  });
}
