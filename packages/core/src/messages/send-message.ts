import { err, ok, type ResultAsync } from "neverthrow";
import { campaignNotFound, findCampaign } from "../campaigns/get-campaign.js";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import { recipientOptedOut, suppressedChannels } from "../inbound/opted-out.js";
import { phoneHash, suppressionKey } from "../inbound/suppression-keys.js";
import { messageBody } from "../links/message-body.js";
import type { CampaignRecord, MessageRecord, Repositories, SendOutcome } from "../ports.js";
import { destinationOf } from "../settings/destination.js";
import { checkDestination } from "../settings/send-gate.js";
import { readSettings } from "../settings/settings.js";
import { isoAt } from "../support/clock.js";
import { parseInput } from "../support/parse.js";
import { useCase } from "../support/result.js";
import { isStorageUnavailable } from "../support/storage-faults.js";
import { annotateActiveSpan, SPAN_ATTRIBUTES } from "../support/tracing.js";
import { recordEvent } from "../webhooks/outbox.js";
import { handOff } from "./hand-off.js";
import { type MessageErrorView, toErrorView } from "./message-error.js";
import { checkDeliveryConsent } from "./promotional-consent.js";
import { firstLeg, NO_FALLBACK } from "./provider-legs.js";
import { resolveRecipient } from "./resolve-recipient.js";
import { campaignInactive, checkSend } from "./send-checks.js";
import { sendMessageInput } from "./send-input.js";
import { checkSendAt, scheduleOfSend } from "./send-schedule.js";

/** The message dispatch result of docs/api.md. */
export interface SendResult {
  message_id: string;
  /**
   * The initial dispatch status: `scheduled` only for a send held for its campaign's sending
   * window or its `send_at`.
   */
  status: "sent" | "failed" | "scheduled";
  /** When a `scheduled` message is released; present only then. */
  scheduled_for?: string;
  client_reference: string | null;
  /** Why the upstream refused the message; `null` unless `status` is `failed`. */
  error: MessageErrorView | null;
}

/** Statuses of a message that was held at its request and has not gone out (yet). */
const HELD = new Set<MessageRecord["status"]>(["scheduled", "releasing", "cancelled"]);

/** The dispatch result of a message as it stands after the hand-off (or as it was held). */
export const toSendResult = (message: MessageRecord): SendResult =>
  HELD.has(message.status) && message.scheduledFor !== null
    ? {
        message_id: message.id,
        status: "scheduled",
        scheduled_for: message.scheduledFor,
        client_reference: message.clientReference,
        error: null,
      }
    : {
        message_id: message.id,
        status: message.status === "failed" ? "failed" : "sent",
        client_reference: message.clientReference,
        error: message.status === "failed" ? toErrorView(message.error) : null,
      };

/** How the hand-off ended, for metrics: a Viber message now on SMS fell back. */
const sendOutcome = (
  campaign: Pick<CampaignRecord, "channel">,
  message: MessageRecord,
): SendOutcome =>
  message.status === "failed"
    ? "failed"
    : campaign.channel === "viber" && message.channel === "sms"
      ? "fell_back_to_sms"
      : "sent";

/** Options of `sendMessage`. */
export interface SendOptions {
  /**
   * Called inside the transaction that stores the message, with the send's recovery point
   * (`withIdempotency`'s checkpoint): if it throws, nothing is stored and nothing is sent.
   */
  checkpoint?: ((tx: Repositories, recoveryPoint: string) => Promise<void>) | undefined;
  /**
   * The campaign as the send's gate (`admitSend`) just read it, used instead of reading it
   * again when it is the one the body names (anything else is read as usual).
   */
  campaign?: CampaignRecord | null | undefined;
}

const MESSAGE_POINT = "message:";

/**
 * The dispatch result of the send that committed at `recoveryPoint`, as it stands now, for a
 * retry that resumes a send whose process died after storing it; `null` for another point.
 */
export async function recoverSendResult(
  deps: Pick<Deps, "storage">,
  actor: Actor,
  recoveryPoint: string,
): Promise<SendResult | null> {
  if (!recoveryPoint.startsWith(MESSAGE_POINT)) return null;
  const id = recoveryPoint.slice(MESSAGE_POINT.length);
  const message = await deps.storage.messages.get(actor.organizationId, id);
  return message === null ? null : toSendResult(message);
}

/**
 * POST /v1/messages/send: checks the body, the campaign, the params, the webhook URL and the
 * recipient with its consent, then stores and hands off the message.
 *
 * Crash safety: the message (status `sent`), its `message.sent` event and that event's outbox
 * deliveries commit in ONE transaction, together with a profile the send created, BEFORE the
 * hand-off to the provider. `message.sent` therefore means "accepted for delivery by Tidings"
 * (docs/api.md), and whatever happens after the commit (an upstream refusal, a transport error,
 * a crash) can add events but never lose the ones stored: a refusal adds `message.failed`,
 * and a message whose hand-off was lost in a crash expires at its TTL with `message.expired`.
 * The reverse order (dispatch first, store after) could send a message that has no record.
 */
export function sendMessage(
  deps: Pick<
    Deps,
    | "storage"
    | "ids"
    | "clock"
    | "provider"
    | "urlPolicy"
    | "telemetry"
    | "links"
    | "calendar"
    | "secretBox"
  >,
  actor: Actor & { apiKeyId: string },
  input: unknown,
  options: SendOptions = {},
): ResultAsync<SendResult, DomainError> {
  return useCase("sendMessage", async () => {
    const parsed = parseInput(sendMessageInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const body = parsed.value;
    const sendAt = checkSendAt(deps.clock.now(), body.send_at);
    if (sendAt.isErr()) return err(sendAt.error);

    const campaign =
      options.campaign?.id === body.campaign_id &&
      options.campaign.organizationId === actor.organizationId
        ? options.campaign
        : await findCampaign(deps.storage, actor.organizationId, body.campaign_id);
    if (!campaign) return err(campaignNotFound(body.campaign_id));
    if (campaign.status !== "active") return err(campaignInactive(campaign.id));

    const checked = await checkSend(deps, campaign, body);
    if (checked.isErr()) return err(checked.error);
    const { values, recipient } = checked.value;
    // Made once per organization and then held in memory: no round trip on later sends.
    const hashKey = await suppressionKey(deps, actor.organizationId);
    // A number given in the request was checked by the send's gate (`admitSend`); a profile's
    // is checked once the profile is read, against the settings read now.
    const settings =
      body.recipient.type === "phone_number"
        ? null
        : await readSettings(deps.storage, actor.organizationId);

    const stored = await deps.storage.transaction(async (tx) => {
      const resolved = await resolveRecipient(tx, deps, actor, campaign, recipient, (number) =>
        phoneHash(hashKey, number),
      );
      if (resolved.isErr()) return err(resolved.error);
      const profile = resolved.value.profile;
      // A suppressed number is refused in every category, before anything is stored (the
      // transaction rolls back a profile the send created). A number given in the request had
      // its suppressions read with its profile; a profile's given by id or email takes one
      // indexed read more.
      const suppressed =
        resolved.value.suppressed ??
        (await suppressedChannels(tx, deps, actor.organizationId, profile.phoneNumber));
      if (suppressed.has(campaign.channel)) return err(recipientOptedOut(campaign.channel));
      const destination = settings === null ? null : destinationOf(profile.phoneNumber);
      if (settings !== null && destination !== null) {
        const allowed = checkDestination(settings, campaign, destination);
        if (allowed.isErr()) {
          deps.telemetry?.sendRefused?.(allowed.error.reason);
          return err(allowed.error);
        }
      }
      const consent = checkDeliveryConsent(campaign, profile);
      if (consent.isErr()) return err(consent.error);

      const now = deps.clock.now();
      const schedule = scheduleOfSend(deps, campaign, profile, now, sendAt.value);
      if (schedule.isErr()) return err(schedule.error);
      const releaseAt = schedule.value.release === "later" ? schedule.value.at : null;
      const at = isoAt(now);
      const id = deps.ids.uuidv7();
      const { body: text, links } = messageBody(deps.links, campaign, values, {
        id,
        organizationId: actor.organizationId,
        createdAt: at,
      });
      const message: MessageRecord = {
        id,
        organizationId: actor.organizationId,
        apiKeyId: actor.apiKeyId,
        campaignId: campaign.id,
        profileId: profile.id,
        phoneNumber: profile.phoneNumber,
        category: campaign.category,
        channel: campaign.channel,
        smsFallbackAllowed: consent.value.smsFallbackAllowed,
        sender: campaign.sender,
        body: text,
        clientReference: body.client_reference ?? null,
        webhookUrl: body.webhook_url ?? null,
        status: releaseAt === null ? "sent" : "scheduled",
        error: null,
        // A held message's TTL starts again when it is released.
        expiresAt: isoAt((releaseAt ?? now) + campaign.ttlSeconds * 1000),
        createdAt: at,
        updatedAt: at,
        ...firstLeg(deps.provider, campaign.channel),
        ...NO_FALLBACK,
        scheduledFor: releaseAt === null ? null : isoAt(releaseAt),
      };
      await tx.messages.insert(message);
      // One call, and none at all without links: a send that tracks nothing costs nothing more.
      if (links.length > 0) await tx.links.insertMany(links);
      // A held message is announced `message.sent` when it is released, not before.
      if (releaseAt === null) await recordEvent(tx, deps, message, "message.sent", null);
      await options.checkpoint?.(tx, `${MESSAGE_POINT}${message.id}`);
      return ok(message);
    });
    if (stored.isErr()) return err(stored.error);
    annotateActiveSpan(SPAN_ATTRIBUTES.messageId, stored.value.id);
    if (stored.value.status === "scheduled") return ok(toSendResult(stored.value));

    let handedOff: MessageRecord;
    try {
      handedOff = await handOff(deps, stored.value, campaign);
    } catch (cause) {
      // Not a storage-busy "nothing changed": the message is stored and may be on its way, so
      // only a retry with the same Idempotency-Key (which answers from the stored message) is safe.
      if (isStorageUnavailable(cause)) throw cause.withOutcome("unknown");
      throw new Error(
        `Message ${stored.value.id} was stored, but recording its hand-off to the provider failed.`,
        { cause },
      );
    }
    if (deps.telemetry?.sentToCountry) {
      deps.telemetry.sentToCountry(destinationOf(handedOff.phoneNumber)?.country ?? "unknown");
    }
    deps.telemetry?.messageSent({
      category: campaign.category,
      channel: campaign.channel,
      outcome: sendOutcome(campaign, handedOff),
    });
    return ok(toSendResult(handedOff));
  });
}
