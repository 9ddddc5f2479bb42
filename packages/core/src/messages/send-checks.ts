import { err, ok, type Result } from "neverthrow";
import { renderTemplate } from "../campaigns/template.js";
import { renderedTextIssue } from "../campaigns/text-limit.js";
import { validateParams } from "../campaigns/viber-params.js";
import type { Deps } from "../deps.js";
import { type Issue, type ValidationError, validationError } from "../errors.js";
import type { CampaignRecord } from "../ports.js";
import { normalizeRecipient, type Recipient } from "./resolve-recipient.js";
import type { SendMessageInput } from "./send-input.js";

/** A send's input once it fits its campaign. */
export interface CheckedSend {
  /** The params as strings, ready to render. */
  values: Record<string, string>;
  /** The recipient, a phone number in E.164. */
  recipient: Recipient;
}

/** 400 for a campaign that exists but is not active: only active campaigns can be triggered. */
export const campaignInactive = (campaignId: string): ValidationError =>
  validationError(
    [
      {
        path: "campaign_id",
        rule: "campaign_inactive",
        message: "The campaign is inactive; only an active campaign can be triggered.",
      },
    ],
    `The campaign ${JSON.stringify(campaignId)} is inactive.`,
    "campaign_inactive",
  );

/**
 * Checks what can be checked before touching any profile: the params against the campaign,
 * the per-message webhook URL against the URL policy, and the phone number's format. Every
 * problem is listed in one 400; its code is `invalid_params` when a param is among them.
 */
export async function checkSend(
  deps: Pick<Deps, "urlPolicy"> & Partial<Pick<Deps, "provider">>,
  campaign: CampaignRecord,
  body: SendMessageInput,
): Promise<Result<CheckedSend, ValidationError>> {
  const issues: Issue[] = [];
  const params = validateParams(campaign, body.params);
  if (params.isErr()) issues.push(...params.error);
  const paramsInvalid = issues.length > 0;

  if (body.webhook_url !== undefined) {
    const verdict = await deps.urlPolicy.check(body.webhook_url);
    if (!verdict.allowed) {
      issues.push({ path: "webhook_url", rule: "url_policy", message: verdict.reason });
    }
  }
  const recipient = normalizeRecipient(body.recipient);
  if (recipient.isErr()) {
    issues.push({
      path: "recipient.value",
      rule: "phone_number",
      message: `The recipient's phone number ${recipient.error}`,
    });
  }

  if (params.isErr() || recipient.isErr() || issues.length > 0) {
    return err(
      paramsInvalid
        ? validationError(issues, "The params do not fit the campaign.", "invalid_params")
        : validationError(issues),
    );
  }
  // Limits at the door: a text the providers would refuse is not stored as a message.
  const tooLong = renderedTextIssue(
    deps,
    campaign,
    renderTemplate(campaign.template, params.value),
  );
  if (tooLong !== null) {
    return err(
      validationError(
        [tooLong],
        "The rendered text is longer than the providers take.",
        "text_too_long",
      ),
    );
  }
  return ok({ values: params.value, recipient: recipient.value });
}
