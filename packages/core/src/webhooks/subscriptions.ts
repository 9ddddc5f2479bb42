import { err, ok, type ResultAsync } from "neverthrow";
import { randomSecret } from "../auth/key-secret.js";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import type { WebhookSubscriptionRecord } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { useCase } from "../support/result.js";
import { type ShowOne, showOne } from "../support/show-one.js";
import { changeWebhook, findWebhook, webhookNotFound } from "./find-webhook.js";
import { checkCanActivate, checkCanAdd } from "./subscription-rules.js";
import { createWebhookInput, parseWebhookInput } from "./webhook-input.js";
import { toWebhookView, type WebhookView, type WebhookWithSecret } from "./webhook-view.js";

/** The list envelope of GET /v1/webhooks: every subscription on one page. */
export interface WebhookList {
  data: WebhookView[];
  meta: { has_more: false; next_cursor: null };
}

/** A fresh signing secret as shown to the receiver's owner. */
const newSigningSecret = (): string => `whsec_${randomSecret(32)}`;

/**
 * Creates a subscription (201) and answers its signing secret, the only time besides rotation.
 * The organization's rules are checked under its lock, in the transaction that inserts.
 */
export function createWebhook(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "secretBox" | "urlPolicy">,
  actor: Actor,
  input: unknown,
): ResultAsync<WebhookWithSecret, DomainError> {
  return useCase("createWebhook", async () => {
    const parsed = await parseWebhookInput(deps.urlPolicy, createWebhookInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const { url, topics, status, description } = parsed.value;
    const secret = newSigningSecret();
    const now = isoAt(deps.clock.now());
    const record: WebhookSubscriptionRecord = {
      id: deps.ids.prefixed("whk"),
      organizationId: actor.organizationId,
      url,
      topics,
      status,
      description,
      secretSealed: deps.secretBox.seal(secret),
      disabledReason: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    };
    return deps.storage.transaction(async (tx) => {
      await tx.webhooks.lockOrganization(actor.organizationId);
      const existing = await tx.webhooks.list(actor.organizationId);
      const allowed = checkCanAdd(existing).andThen(() =>
        status === "active" ? checkCanActivate({ id: null, topics }, existing) : ok(undefined),
      );
      if (allowed.isErr()) return err(allowed.error);
      await tx.webhooks.insert(record);
      return ok({ ...toWebhookView(record), signing_secret: secret });
    });
  });
}

/** The organization's subscriptions, oldest first, in the list envelope. */
export function listWebhooks(
  deps: Pick<Deps, "storage">,
  actor: Actor,
): ResultAsync<WebhookList, DomainError> {
  return useCase("listWebhooks", async () => {
    const records = await deps.storage.webhooks.list(actor.organizationId);
    return ok({
      data: records.map(toWebhookView),
      meta: { has_more: false, next_cursor: null },
    });
  });
}

/** One subscription, without its secret. */
export const getWebhook: ShowOne<WebhookView> = showOne(
  "getWebhook",
  findWebhook,
  webhookNotFound,
  (record) => ok(toWebhookView(record)),
);

/** Deletes a subscription (204) and cancels the deliveries still owed to it. */
export function deleteWebhook(
  deps: Pick<Deps, "storage" | "clock">,
  actor: Actor,
  webhookId: string,
): ResultAsync<void, DomainError> {
  return useCase("deleteWebhook", () =>
    // Under the lock, so a PATCH reading it meanwhile does not write to a deleted row.
    changeWebhook(deps.storage, actor.organizationId, webhookId, async (tx) => {
      await tx.deliveries.cancelForSubscription(
        actor.organizationId,
        webhookId,
        isoAt(deps.clock.now()),
      );
      await tx.webhooks.delete(actor.organizationId, webhookId);
      return ok(undefined);
    }),
  );
}

/**
 * Replaces the signing secret and answers the new one once. The old secret stops at once:
 * every attempt, retries included, is signed with the secret stored at that moment. Only the
 * secret and `updated_at` are written, under the organization's lock like every other change,
 * so a concurrent PATCH or rotation neither undoes this one nor is undone by it.
 */
export function rotateWebhookSecret(
  deps: Pick<Deps, "storage" | "clock" | "secretBox">,
  actor: Actor,
  webhookId: string,
): ResultAsync<WebhookWithSecret, DomainError> {
  return useCase("rotateWebhookSecret", () =>
    changeWebhook(deps.storage, actor.organizationId, webhookId, async (tx, record) => {
      const secret = newSigningSecret();
      const changes = {
        secretSealed: deps.secretBox.seal(secret),
        updatedAt: isoAt(deps.clock.now()),
      };
      if (!(await tx.webhooks.update(actor.organizationId, webhookId, changes))) {
        return err(webhookNotFound(webhookId));
      }
      return ok({ ...toWebhookView({ ...record, ...changes }), signing_secret: secret });
    }),
  );
}
