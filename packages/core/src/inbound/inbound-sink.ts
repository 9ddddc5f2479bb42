import type { Deps } from "../deps.js";
import type {
  InboundMessageRecord,
  InboundOutcome,
  InboundReport,
  InboundSink,
  KeywordClass,
} from "../ports.js";
import { normalizePhone } from "../profiles/phone.js";
import { isoAt } from "../support/clock.js";
import { optIn, optOut } from "./consent-effects.js";
import { type KeywordLists, keywordMatcher, keywordWords } from "./keywords.js";
import { recordOrganizationEvent } from "./organization-events.js";
import { suppressionKey } from "./suppression-keys.js";

/** What the sink reports of each inbound message it stored, for metrics. */
export interface InboundTelemetry {
  inboundReceived?(message: { provider: string; channel: string; keywordClass: string }): void;
  suppressionAdded?(source: string): void;
}

/** What the inbound sink needs besides the usual dependencies. */
export interface InboundSinkOptions {
  /** Words added to the default keywords (`TIDINGS_KEYWORDS`). */
  keywords?: Partial<KeywordLists> | undefined;
  telemetry?: InboundTelemetry | undefined;
  /** Told of a message nobody owns or whose sender is not a number (logged at info). */
  dropped?: ((report: InboundReport, outcome: "bad_sender" | "no_owner") => void) | undefined;
}

/**
 * The core's side of every inbound route. `from` is normalised to E.164; the owners of the
 * message are the organizations that sent a message to `from` from `to` within retention,
 * else those an operator assigned `to` to. For each owner the message is stored once per
 * provider message id, with its effects in the same transaction: an opt-out suppresses the
 * number on the channel and turns its marketing consent off, an opt-in lifts an `inbound` or
 * `provider` suppression and restores the consent it removed, help changes nothing; then
 * `message.received` is queued for the organization's subscriptions.
 */
export function inboundSink(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox" | "config">,
  options: InboundSinkOptions = {},
): InboundSink {
  const match = keywordMatcher(options.keywords);
  return {
    async receive(report: InboundReport): Promise<InboundOutcome> {
      const from = normalizePhone(report.from);
      if (from.isErr()) {
        options.dropped?.(report, "bad_sender");
        return "bad_sender";
      }
      const phoneNumber = from.value;
      const now = deps.clock.now();
      const since = isoAt(now - deps.config.retentionMs);
      let owners = await deps.storage.inbound.messageOwners(phoneNumber, report.to, since);
      if (owners.length === 0)
        owners = await deps.storage.senders.owners(report.channel, report.to);
      if (owners.length === 0) {
        options.dropped?.(report, "no_owner");
        return "no_owner";
      }
      const matched = match(report.text);
      const keywordClass: KeywordClass | null =
        report.providerKeywordClass ?? matched?.keywordClass ?? null;
      const keyword =
        keywordClass === null
          ? null
          : (matched?.keyword ?? keywordWords(report.text)[0] ?? keywordClass.toUpperCase());
      const receivedAt = isoAt(report.receivedAt?.getTime() ?? now);
      const act = {
        source: "inbound" as const,
        keyword,
        provider: report.provider,
        note: null,
        apiKeyId: null,
      };

      let stored = false;
      for (const organizationId of owners) {
        const key = await suppressionKey(deps, organizationId);
        const outcome = await deps.storage.transaction(async (tx) => {
          const profile = await tx.profiles.findByPhone(organizationId, phoneNumber);
          const message: InboundMessageRecord = {
            id: deps.ids.uuidv7(),
            organizationId,
            provider: report.provider,
            providerMessageId: report.providerMessageId,
            channel: report.channel,
            fromNumber: phoneNumber,
            toSender: report.to,
            text: report.text,
            keywordClass,
            profileId: profile?.id ?? null,
            receivedAt,
          };
          if (!(await tx.inbound.insert(message))) return { stored: false, suppressed: false };
          let suppressed = false;
          if (keywordClass === "opt_out") {
            const effect = await optOut(
              tx,
              deps,
              key,
              organizationId,
              report.channel,
              phoneNumber,
              { ...act, inboundId: message.id },
            );
            suppressed = effect.suppressionChanged;
          } else if (keywordClass === "opt_in") {
            await optIn(tx, deps, key, organizationId, report.channel, phoneNumber, act, [
              "inbound",
              "provider",
            ]);
          }
          await recordOrganizationEvent(tx, deps, organizationId, "message.received", {
            inbound_id: message.id,
            channel: message.channel,
            from: phoneNumber,
            to: report.to,
            text: report.text,
            keyword_class: keywordClass,
            public_id: message.profileId,
            provider: report.provider,
            received_at: receivedAt,
          });
          return { stored: true, suppressed };
        });
        if (!outcome.stored) continue;
        stored = true;
        options.telemetry?.inboundReceived?.({
          provider: report.provider,
          channel: report.channel,
          keywordClass: keywordClass ?? "none",
        });
        if (outcome.suppressed) options.telemetry?.suppressionAdded?.("inbound");
      }
      return stored ? "stored" : "duplicate";
    },
  };
}
