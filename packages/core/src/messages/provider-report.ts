import { err, ok, type Result } from "neverthrow";
import type { Deps } from "../deps.js";
import { type DomainError, notFound } from "../errors.js";
import type { MessageError, MessageStatus, ProviderReport } from "../ports.js";
import { inSpan, SPAN_ATTRIBUTES } from "../support/tracing.js";
import { advanceMessage } from "./lifecycle.js";

/** What a report did: `applied` false when the lifecycle ignored it (backwards or repeated). */
export interface ReportOutcome {
  message_id: string;
  applied: boolean;
  status: MessageStatus;
}

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
  const outcome = await advanceMessage(
    deps,
    messageId,
    report,
    report === "failed" ? (error ?? UPSTREAM_FAILED) : null,
  );
  if (outcome.kind === "not_found") {
    return err(notFound("message", messageId, "message_not_found"));
  }
  return ok({
    message_id: messageId,
    applied: outcome.kind === "applied",
    status: outcome.message.status,
  });
}
