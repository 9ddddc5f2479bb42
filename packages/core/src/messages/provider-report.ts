import { err, ok, type Result } from "neverthrow";
import type { Deps } from "../deps.js";
import { type DomainError, notFound } from "../errors.js";
import { meansOptedOut, optedOutError, suppressFromProvider } from "../inbound/opted-out.js";
import type {
  MessageError,
  MessageRecord,
  MessageStatus,
  ProviderReport,
  UpstreamReport,
} from "../ports.js";
import type { ProviderLogger } from "../providers/provider-logger.js";
import { isoAt } from "../support/clock.js";
import { isUuidV7 } from "../support/ids.js";
import { inSpan, SPAN_ATTRIBUTES } from "../support/tracing.js";
import { type Advance, advanceMessage } from "./lifecycle.js";
import { recordLegPrice } from "./message-prices.js";
import { legOf, sameSender } from "./provider-legs.js";

/** What a report did: `applied` false when the lifecycle ignored it (backwards or repeated). */
export interface ReportOutcome {
  message_id: string;
  applied: boolean;
  status: MessageStatus;
}

/** Why an upstream report was ignored before the lifecycle was asked, for the caller's log. */
export type IgnoredLeg = "superseded_leg" | "other_provider" | "other_provider_message_id";

/** What an upstream report did; `ignored` says why a report about another leg changed nothing. */
export interface UpstreamReportOutcome extends ReportOutcome {
  ignored: IgnoredLeg | null;
  /** Whether the report moved a Viber message to SMS, its SMS now due. */
  fell_back: boolean;
}

/**
 * Whether a report makes the message fall back to SMS: the Viber leg failed or expired, and the
 * message may fall back (its campaign's `sms_fallback`, and SMS consent for Promotional).
 */
const fallsBack = (message: MessageRecord, report: UpstreamReport): boolean =>
  report.channel === "viber" &&
  message.channel === "viber" &&
  message.smsFallbackAllowed &&
  message.status === "sent" &&
  (report.status === "failed" || report.status === "expired");

const UPSTREAM_FAILED: MessageError = {
  code: "upstream_failed",
  message: "The upstream reported that the message could not be delivered.",
};

/**
 * How an upstream reports a message's progress (`delivered`, `seen`, `clicked`, `failed`,
 * `expired`). A report that would go backwards or repeat is ignored without an event; an
 * applied one records its event and outbox deliveries with the status change.
 */
export async function recordProviderReport(
  deps: Pick<Deps, "storage" | "ids" | "clock">,
  messageId: string,
  report: ProviderReport,
  error?: MessageError | undefined,
): Promise<Result<ReportOutcome, DomainError>> {
  return inSpan(
    "recordProviderReport",
    { [SPAN_ATTRIBUTES.useCase]: "recordProviderReport", [SPAN_ATTRIBUTES.messageId]: messageId },
    () => applyReport(deps, messageId, report, error),
  );
}

async function applyReport(
  deps: Pick<Deps, "storage" | "ids" | "clock">,
  messageId: string,
  report: ProviderReport,
  error: MessageError | undefined,
): Promise<Result<ReportOutcome, DomainError>> {
  const outcome = await advanceMessage(deps, messageId, report, reportError(report, error));
  return reportOutcome(messageId, outcome);
}

/** The error a report stores: a failure's own, or the generic upstream failure; else none. */
export const reportError = (
  report: ProviderReport,
  error: MessageError | undefined,
): MessageError | null => (report === "failed" ? (error ?? UPSTREAM_FAILED) : null);

/** What a report's move of the message comes to for its caller. */
export function reportOutcome(
  messageId: string,
  outcome: Advance,
): Result<ReportOutcome, DomainError> {
  if (outcome.kind === "not_found") {
    return err(notFound("message", messageId, "message_not_found"));
  }
  return ok({
    message_id: messageId,
    applied: outcome.kind === "applied",
    status: outcome.message.status,
  });
}

/** Whether `report` is about `message`'s current leg; why not, otherwise. */
function checkLeg(
  message: MessageRecord,
  report: Pick<UpstreamReport, "channel" | "provider" | "providerMessageId">,
): IgnoredLeg | null {
  // After the SMS fallback the Viber leg's reports are late news of an attempt given up.
  if (report.channel !== message.channel) return "superseded_leg";
  const leg = legOf(message, message.channel);
  if (leg === null) return null;
  if (leg.provider !== report.provider) return "other_provider";
  const stored = leg.providerMessageId;
  // A report may overtake the answer that carries the id; it is matched once the id is stored.
  if (stored !== null && report.providerMessageId !== null && stored !== report.providerMessageId) {
    return "other_provider_message_id";
  }
  return null;
}

/**
 * How a real upstream reports a message's progress: like `recordProviderReport`, but only for
 * the message's current leg (see `UpstreamReport`); a failure's error names the provider and
 * its code, and a reported price is kept (see `recordLegPrice`). Unknown message:
 * `message_not_found`, which a callback answers with 200 all the same, so the provider stops
 * retrying.
 */
export async function recordUpstreamReport(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox" | "telemetry">,
  report: UpstreamReport,
): Promise<Result<UpstreamReportOutcome, DomainError>> {
  return inSpan(
    "recordUpstreamReport",
    {
      [SPAN_ATTRIBUTES.useCase]: "recordUpstreamReport",
      [SPAN_ATTRIBUTES.messageId]: report.messageId,
    },
    async () => {
      const message = await deps.storage.messages.getById(report.messageId);
      if (message === null) {
        return err(notFound("message", report.messageId, "message_not_found"));
      }
      // A leg's cost is kept whatever the report does to the message (a late report included).
      await recordLegPrice(deps, message, report);
      const ignored = checkLeg(message, report);
      if (ignored !== null) {
        return ok({
          message_id: message.id,
          applied: false,
          status: message.status,
          ignored,
          fell_back: false,
        });
      }
      await keepSentFrom(deps, message, report);
      const code = storableText(report.providerCode);
      const optedOut =
        report.status === "failed" &&
        meansOptedOut({ ...UPSTREAM_FAILED, provider: report.provider, provider_code: code });
      if (optedOut) {
        // The person opted out or blocked the sender: suppressed on this channel, and a Viber
        // block never falls back to SMS.
        const refusal = { ...UPSTREAM_FAILED, provider: report.provider, provider_code: code };
        await suppressFromProvider(deps, message, report.channel, refusal);
        const applied = await applyReport(
          deps,
          message.id,
          "failed",
          optedOutError(report.channel, report.provider, code),
        );
        return applied.map((outcome) => ({ ...outcome, ignored: null, fell_back: false }));
      }
      if (fallsBack(message, report)) {
        // The switch and the SMS job are one write: once the report is answered, the SMS is owed.
        const at = isoAt(deps.clock.now());
        const moved = await deps.storage.messages.scheduleFallback(message.id, at, at);
        if (moved !== null) {
          return ok({
            message_id: message.id,
            applied: true,
            status: moved.status,
            ignored: null,
            fell_back: true,
          });
        }
        // Another copy of this report (a provider's retry, arriving at the same time) moved the
        // message to SMS first: this leg is over, and failing the message now would cancel the
        // SMS it owes.
        const now = await deps.storage.messages.getById(message.id);
        return ok({
          message_id: message.id,
          applied: false,
          status: now?.status ?? message.status,
          ignored: now === null ? null : checkLeg(now, report),
          fell_back: false,
        });
      }
      const description = storableText(report.description);
      const error: MessageError = {
        ...UPSTREAM_FAILED,
        ...(description === null
          ? {}
          : { message: `${UPSTREAM_FAILED.message} The provider said: ${description}` }),
        provider: report.provider,
        provider_code: storableText(report.providerCode),
      };
      const applied = await applyReport(deps, message.id, report.status, error);
      return applied.map((outcome) => ({ ...outcome, ignored: null, fell_back: false }));
    },
  );
}

/** What identifies a leg and the sender a provider says it went out from. */
export type UpstreamSentFrom = Pick<
  UpstreamReport,
  "messageId" | "channel" | "provider" | "providerMessageId"
> & { sentFrom: string };

/**
 * Keeps the sender the report says the message's SMS leg went out from, when it is not the one
 * the message already names (inbound ownership reads it).
 */
async function keepSentFrom(
  deps: Pick<Deps, "storage">,
  message: MessageRecord,
  report: Pick<UpstreamReport, "channel" | "sentFrom">,
): Promise<boolean> {
  const sentFrom = storableText(report.sentFrom);
  if (report.channel !== "sms" || sentFrom === null || sameSender(message, sentFrom)) return false;
  return deps.storage.messages.recordSentFrom(message.id, sentFrom);
}

/**
 * A report that changes no status but says which sender the SMS leg went out from (Twilio's
 * `sent` callback of a Messaging Service send): kept for the message's current leg only.
 * `false` when nothing was kept (unknown message, another leg, the same sender).
 */
export async function recordUpstreamSentFrom(
  deps: Pick<Deps, "storage">,
  report: UpstreamSentFrom,
): Promise<boolean> {
  const message = await deps.storage.messages.getById(report.messageId);
  if (message === null || checkLeg(message, report) !== null) return false;
  return keepSentFrom(deps, message, report);
}

/** The longest provider text kept in a message's error (its description or code). */
const MAX_PROVIDER_TEXT = 500;

/**
 * A provider's text as a message's error may keep it: a string without control characters or
 * lone surrogates (PostgreSQL refuses `\u0000` in JSON, and neither belongs in a webhook),
 * at most `MAX_PROVIDER_TEXT` characters; `null` for anything else, or nothing left.
 */
function storableText(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const clean = value
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes.
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd")
    .trim();
  if (clean === "") return null;
  return clean.length > MAX_PROVIDER_TEXT ? `${clean.slice(0, MAX_PROVIDER_TEXT)}…` : clean;
}

/**
 * Records a verified report from a provider's callback as `recordUpstreamReport` does, and logs
 * at info what changes nothing: a message id that is no Tidings id, an unknown message, a report
 * ignored (backwards, repeated, another leg). The callback answers 200 all the same, so the
 * provider stops retrying. The outcome, or `null` when there was no message to apply it to.
 */
export async function recordCallbackReport(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox" | "telemetry">,
  logger: Pick<ProviderLogger, "info">,
  report: UpstreamReport,
): Promise<UpstreamReportOutcome | null> {
  const { provider, messageId, status } = report;
  if (!isUuidV7(messageId)) {
    logger.info(`${provider} report for no Tidings message`, { status });
    return null;
  }
  const recorded = await recordUpstreamReport(deps, report);
  if (recorded.isErr()) {
    logger.info(`${provider} report for an unknown message`, { messageId, status });
    return null;
  }
  const why = recorded.value.ignored;
  if (why !== null) logger.info(`${provider} report ignored`, { messageId, status, why });
  return recorded.value;
}
