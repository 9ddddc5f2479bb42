import type { DeliveryLogEntry } from "@tidings/core";
import type { AttemptOutcomeLabel, Metrics } from "./metrics.js";

type AttemptEntry = Extract<DeliveryLogEntry, { event: "attempt" }>;

const STATUS_CLASSES: Record<number, AttemptOutcomeLabel> = {
  2: "2xx",
  3: "3xx",
  4: "4xx",
  5: "5xx",
};

/**
 * An attempt's outcome label: the receiver's status class (`2xx`, `3xx`, `4xx`, `5xx`; a
 * redirect is never followed, so it is an answer like any other), or why there was no answer:
 * `timeout`, `url_refused` (the URL policy refused the address at connect time),
 * `connection_error`, or `not_sent` (the subscription was gone or its secret did not open);
 * `other_status` for a status outside 200–599, which a receiver should never send.
 */
export function attemptOutcome(
  entry: Pick<AttemptEntry, "statusCode" | "error" | "url">,
): AttemptOutcomeLabel {
  if (entry.statusCode !== null)
    return STATUS_CLASSES[Math.floor(entry.statusCode / 100)] ?? "other_status";
  const error = entry.error ?? "";
  if (entry.url === null) return "not_sent";
  if (error.startsWith("timeout after")) return "timeout";
  if (error.startsWith("refused:")) return "url_refused";
  return "connection_error";
}

/**
 * Counts one entry of the delivery engine's log: an attempt, by outcome, with its duration; a
 * subscription turned off for failing.
 */
export function countWebhookAttempt(metrics: Metrics, entry: DeliveryLogEntry): void {
  if (entry.event === "disabled") metrics.webhooksDisabled.inc();
  if (entry.event !== "attempt") return;
  const outcome = attemptOutcome(entry);
  metrics.webhookAttempts.inc({ outcome });
  metrics.webhookAttemptDuration.observe({ outcome }, entry.durationMs / 1000);
}
