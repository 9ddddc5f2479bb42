import { err, ok, type ResultAsync } from "neverthrow";
import { findCampaign } from "../campaigns/get-campaign.js";
import type { Actor, Deps } from "../deps.js";
import type { ConflictError, DomainError } from "../errors.js";
import { optedOutError, suppressedChannels } from "../inbound/opted-out.js";
import type {
  CampaignRecord,
  Channel,
  MessageError,
  MessageRecord,
  Repositories,
} from "../ports.js";
import { isoAt } from "../support/clock.js";
import { useCase } from "../support/result.js";
import { recordEvent } from "../webhooks/outbox.js";
import { findMessage, messageNotFound } from "./get-message.js";
import { handOff } from "./hand-off.js";
import { type MessageView, toMessageView } from "./message-view.js";
import { checkDeliveryConsent } from "./promotional-consent.js";

/** 409: only a message still `scheduled` can be cancelled. */
export const messageNotScheduled = (message: MessageRecord): ConflictError => ({
  type: "conflict",
  code: "message_not_scheduled",
  message: `The message is ${message.status}; only a scheduled message can be cancelled.`,
  conflicts: [{ id: message.id, reason: message.status }],
});

/**
 * POST /v1/messages/{id}/cancel: a `scheduled` message becomes `cancelled` with a
 * `message.cancelled` event, by the same compare-and-set the release makes, so of a cancel and
 * a release racing for one message exactly one wins; the other gets 409.
 */
export function cancelMessage(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "links">,
  actor: Actor,
  messageId: string,
): ResultAsync<MessageView, DomainError> {
  return useCase("cancelMessage", () =>
    deps.storage.transaction(async (tx) => {
      const current = await findMessage(tx, actor.organizationId, messageId);
      if (current === null) return err(messageNotFound(messageId));
      const cancelled = await tx.messages.advance(current.id, ["scheduled"], {
        status: "cancelled",
        updatedAt: isoAt(deps.clock.now()),
      });
      if (cancelled === null) {
        const now = (await tx.messages.getById(current.id)) ?? current;
        return err(messageNotScheduled(now));
      }
      await recordEvent(tx, deps, cancelled, "message.cancelled", null);
      const links = await tx.links.listForMessage(actor.organizationId, cancelled.id);
      return ok(toMessageView(cancelled, links, deps.links?.baseUrl ?? null));
    }),
  );
}

/**
 * Cancels every message an API key scheduled that is still `scheduled` (its key was revoked),
 * each with its `message.cancelled`; answers how many.
 */
export async function cancelScheduledOfKey(
  tx: Repositories,
  deps: Pick<Deps, "ids" | "clock">,
  organizationId: string,
  apiKeyId: string,
): Promise<number> {
  let cancelled = 0;
  for (let cursor: number | undefined; ; ) {
    const page = await tx.messages.listPage({
      organizationId,
      status: "scheduled",
      beforeSeq: cursor,
      limit: 100,
    });
    for (const message of page) {
      if (message.apiKeyId !== apiKeyId) continue;
      const moved = await tx.messages.advance(message.id, ["scheduled"], {
        status: "cancelled",
        updatedAt: isoAt(deps.clock.now()),
      });
      if (moved === null) continue;
      await recordEvent(tx, deps, moved, "message.cancelled", null);
      cancelled++;
    }
    const last = page[page.length - 1];
    if (page.length < 100 || last === undefined) return cancelled;
    cursor = last.seq;
  }
}

/** Options of `releaseDueMessages`. */
export interface ReleaseOptions {
  /** At most this many messages per call (100). */
  limit?: number;
  /** How many hand-offs run at once (25). */
  concurrency?: number;
  /**
   * How long a message may stay `releasing` (its process died between taking it and handing
   * it off) before it ends `failed`: the provider's deadline plus a minute (70 s).
   */
  staleAfterMs?: number;
}

/** What one call of `releaseDueMessages` did. */
export interface ReleaseRound {
  /** Handed to the provider. */
  released: number;
  /** Refused at release (consent, campaign), `failed` with the reason. */
  refused: number;
  /** Left `releasing` by a process that died, now `failed` `upstream_unavailable`. */
  abandoned: number;
  /** How late each released message went out, in ms after its release time. */
  lagsMs: number[];
}

const refusal = (code: string, message: string): MessageError => ({
  code,
  message,
  provider: null,
  provider_code: null,
});

/**
 * Why a held message may no longer go out, checked again at its release with the same rules
 * as at its request: its campaign is still active, the number is not suppressed on the
 * message's channel (a STOP between the request and the release), and the profile may still
 * receive it.
 */
function releaseRefusal(
  campaign: CampaignRecord | null,
  profile: Parameters<typeof checkDeliveryConsent>[1] | null,
  suppressed: ReadonlySet<Channel>,
  channel: Channel,
): MessageError | null {
  if (campaign === null || campaign.status !== "active") {
    return refusal("campaign_inactive", "The campaign was deactivated before the release.");
  }
  if (profile === null) {
    return refusal("profile_not_found", "The recipient's profile was deleted before the release.");
  }
  if (suppressed.has(channel)) {
    const optedOut = optedOutError(channel);
    return refusal(optedOut.code, optedOut.message);
  }
  const consent = checkDeliveryConsent(campaign, profile);
  return consent.isErr() ? refusal(consent.error.code, consent.error.message) : null;
}

/**
 * Releases held messages whose time has come: each is taken by a compare-and-set `scheduled`
 * → `releasing` that commits before anything else, so of processes racing for it only one
 * goes on; the checks of the request are made again; then it becomes `sent` with its
 * `message.sent` (its TTL counted from now) and is handed to the provider, or `failed` with
 * the refusal. A message some process took and never finished (it died in between) is failed
 * `upstream_unavailable` once `staleAfterMs` has passed: nothing had been handed off, and it is
 * never sent twice.
 */
export async function releaseDueMessages(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "provider" | "telemetry" | "secretBox">,
  options: ReleaseOptions = {},
): Promise<ReleaseRound> {
  const limit = options.limit ?? 100;
  const staleAfterMs = options.staleAfterMs ?? 70_000;
  const round: ReleaseRound = { released: 0, refused: 0, abandoned: 0, lagsMs: [] };

  const staleBefore = isoAt(deps.clock.now() - staleAfterMs);
  for (const id of await deps.storage.messages.listScheduledDue("releasing", staleBefore, limit)) {
    const failed = await deps.storage.transaction(async (tx) => {
      const current = await tx.messages.getById(id);
      // Taken late (a backlog after a restart): its hold is measured from when it was taken.
      if (current === null || current.updatedAt > staleBefore) return null;
      const error = refusal(
        "upstream_unavailable",
        "The process releasing the message stopped before handing it to the provider.",
      );
      const moved = await tx.messages.advance(id, ["releasing"], {
        status: "failed",
        error,
        updatedAt: isoAt(deps.clock.now()),
      });
      if (moved !== null) await recordEvent(tx, deps, moved, "message.failed", error);
      return moved;
    });
    if (failed !== null) round.abandoned++;
  }

  const due = await deps.storage.messages.listScheduledDue(
    "scheduled",
    isoAt(deps.clock.now()),
    limit,
  );
  const queue = [...due];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      await releaseOne(deps, id, round);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(options.concurrency ?? 25, queue.length) }, worker),
  );
  return round;
}

async function releaseOne(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "provider" | "telemetry" | "secretBox">,
  id: string,
  round: ReleaseRound,
): Promise<void> {
  // Committed on its own, before anything is handed off: the one compare-and-set that decides.
  const taken = await deps.storage.messages.advance(id, ["scheduled"], {
    status: "releasing",
    updatedAt: isoAt(deps.clock.now()),
  });
  if (taken === null) return; // another process took it, or it was cancelled
  const decided = await deps.storage.transaction(async (tx) => {
    const campaign = await findCampaign(tx, taken.organizationId, taken.campaignId);
    const profile = await tx.profiles.get(taken.organizationId, taken.profileId);
    // The same indexed read as the send path's, in this transaction.
    const suppressed = await suppressedChannels(tx, deps, taken.organizationId, taken.phoneNumber);
    const refused = releaseRefusal(campaign, profile, suppressed, taken.channel);
    const now = deps.clock.now();
    const moved = await tx.messages.advance(id, ["releasing"], {
      status: refused === null ? "sent" : "failed",
      ...(refused === null
        ? { expiresAt: isoAt(now + (campaign?.ttlSeconds ?? 0) * 1000) }
        : { error: refused }),
      updatedAt: isoAt(now),
    });
    if (moved === null) return null;
    await recordEvent(
      tx,
      deps,
      moved,
      refused === null ? "message.sent" : "message.failed",
      refused,
    );
    return refused === null && campaign !== null ? { message: moved, campaign } : "refused";
  });
  if (decided === "refused") {
    round.refused++;
    return;
  }
  if (decided === null) return;
  const { message, campaign } = decided;
  round.released++;
  if (message.scheduledFor !== null) {
    round.lagsMs.push(Math.max(0, deps.clock.now() - Date.parse(message.scheduledFor)));
  }
  const handedOff = await handOff(deps, message, campaign);
  deps.telemetry?.messageSent({
    category: campaign.category,
    channel: campaign.channel,
    outcome:
      handedOff.status === "failed"
        ? "failed"
        : campaign.channel === "viber" && handedOff.channel === "sms"
          ? "fell_back_to_sms"
          : "sent",
  });
}
