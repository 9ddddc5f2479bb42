import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import { isoAt } from "../support/clock.js";
import { parseInput } from "../support/parse.js";
import { useCase } from "../support/result.js";
import { testEventBody } from "./event-body.js";
import { findWebhook, webhookNotFound } from "./find-webhook.js";
import { webhookHeaders } from "./signing.js";
import { testWebhookInput } from "./webhook-input.js";

/** The answer of POST /v1/webhooks/test, also when the receiver is down or failing. */
export interface WebhookTestResult {
  success: boolean;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

/**
 * Posts one signed `webhook.test` event to a subscription now (active or inactive), once, with
 * no retries and nothing stored. The receiver's failure is the answer, not an error.
 */
export function testWebhook(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox" | "transport" | "config">,
  actor: Actor,
  input: unknown,
): ResultAsync<WebhookTestResult, DomainError> {
  return useCase("testWebhook", async () => {
    const parsed = parseInput(testWebhookInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const webhookId = parsed.value.webhook_id;
    const subscription = await findWebhook(deps.storage, actor.organizationId, webhookId);
    if (!subscription) return err(webhookNotFound(webhookId));

    const now = deps.clock.now();
    const deliveryId = deps.ids.uuidv7();
    const body = testEventBody(deliveryId, isoAt(now), webhookId);
    const headers = webhookHeaders({
      secret: deps.secretBox.open(subscription.secretSealed),
      timestamp: Math.floor(now / 1000),
      body,
      topic: "webhook.test",
      deliveryId,
      attempt: 0,
    });
    const response = await deps.transport.post({
      url: subscription.url,
      headers,
      body,
      timeoutMs: deps.config.webhookTimeoutMs,
    });
    if (response.kind === "error") {
      return ok({
        success: false,
        status_code: null,
        duration_ms: response.durationMs,
        error: response.error,
      });
    }
    const success = response.status >= 200 && response.status < 300;
    return ok({
      success,
      status_code: response.status,
      duration_ms: response.durationMs,
      error: success ? null : `The receiver answered HTTP ${response.status}.`,
    });
  });
}
