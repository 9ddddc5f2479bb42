import { err, ok, type Result, type ResultAsync } from "neverthrow";
import * as v from "valibot";
import type { Actor, Deps } from "../deps.js";
import { type DomainError, notFound, validationError } from "../errors.js";
import { findMessage, messageNotFound } from "../messages/get-message.js";
import type { DeliveryListQuery, DeliveryRecord, Repositories } from "../ports.js";
import { isPrefixedId, isUuidV7 } from "../support/ids.js";
import {
  instantFilter,
  newestFirstPage,
  onlyParameters,
  pageParameters,
  parseListQuery,
} from "../support/newest-first.js";
import type { Page } from "../support/page.js";
import { useCase } from "../support/result.js";
import { type ShowOne, showOne } from "../support/show-one.js";
import {
  DELIVERY_STATUS_VIEWS,
  type DeliveryView,
  type DeliveryWithAttemptsView,
  storedDeliveryStatus,
  toAttemptView,
  toDeliveryView,
} from "./delivery-view.js";
import { findWebhook, webhookNotFound } from "./find-webhook.js";

const status = v.optional(
  v.picklist(DELIVERY_STATUS_VIEWS, `must be one of ${DELIVERY_STATUS_VIEWS.join(", ")}.`),
);
/** `failing=true`: pending deliveries whose last attempt failed, being retried. */
const failing = v.optional(
  v.pipe(
    v.picklist(["true", "false"], "must be true or false."),
    v.transform((text) => text === "true"),
  ),
);
const timeFilters = {
  created_after: v.optional(instantFilter),
  created_before: v.optional(instantFilter),
};

const ONE_PLACE = [
  "status",
  "failing",
  "created_after",
  "created_before",
  "limit",
  "cursor",
] as const;

/** The query of one subscription's or one message's deliveries. */
export const listDeliveriesOfQuery = v.strictObject(
  { status, failing, ...timeFilters, ...pageParameters },
  onlyParameters(ONE_PLACE),
);

/** GET /v1/deliveries query parameters. */
export const listDeliveriesQuery = v.strictObject(
  {
    status,
    failing,
    webhook_id: v.optional(
      v.pipe(
        v.string("must be a string."),
        v.check((id) => isPrefixedId(id, "whk"), "must be a webhook id (whk_…)."),
      ),
    ),
    ...timeFilters,
    ...pageParameters,
  },
  onlyParameters(["status", "failing", "webhook_id", ...ONE_PLACE.slice(2)]),
);

/** 404 for a delivery the organization cannot see. */
export const deliveryNotFound = (id: string) => notFound("delivery", id, "delivery_not_found");

/** The organization's delivery, or `null`; a malformed id never reaches storage. */
export async function findDelivery(
  repositories: Pick<Repositories, "deliveries">,
  organizationId: string,
  id: string,
): Promise<DeliveryRecord | null> {
  if (!isUuidV7(id)) return null;
  return repositories.deliveries.get(organizationId, id);
}

/** The organization's subscriptions by id, to show each delivery's current URL. */
export async function subscriptionsById(deps: Pick<Deps, "storage">, actor: Actor) {
  const subscriptions = await deps.storage.webhooks.list(actor.organizationId);
  return new Map(subscriptions.map((s) => [s.id, s]));
}

type Where = Pick<DeliveryListQuery, "webhookId" | "messageId">;
type Filters = v.InferOutput<typeof listDeliveriesQuery>;

/** Parses a delivery list's query and reads its page, newest first. */
async function pageOfDeliveries(
  deps: Pick<Deps, "storage">,
  actor: Actor,
  schema: v.GenericSchema<unknown, Filters>,
  query: unknown,
  where: (filters: Filters) => Where,
): Promise<Result<Page<DeliveryView>, DomainError>> {
  const parsed = parseListQuery(schema, query);
  if (parsed.isErr()) return err(parsed.error);
  const { filters, pageSize, beforeSeq } = parsed.value;
  if (filters.failing === true && filters.status !== undefined && filters.status !== "pending") {
    return err(
      validationError([
        {
          path: "failing",
          message: `cannot be combined with status=${filters.status}; failing deliveries are pending.`,
        },
      ]),
    );
  }
  const rows = await deps.storage.deliveries.listPage({
    organizationId: actor.organizationId,
    ...where(filters),
    status: filters.status === undefined ? undefined : storedDeliveryStatus(filters.status),
    failing: filters.failing,
    createdAfter: filters.created_after,
    createdBefore: filters.created_before,
    beforeSeq,
    limit: pageSize + 1,
  });
  const subscriptions = await subscriptionsById(deps, actor);
  return ok(newestFirstPage(rows, pageSize, (row) => toDeliveryView(row, subscriptions)));
}

/**
 * The organization's deliveries, newest first, by status, subscription and creation time;
 * deliveries to messages' own `webhook_url` included.
 */
export function listDeliveries(
  deps: Pick<Deps, "storage">,
  actor: Actor,
  query: unknown,
): ResultAsync<Page<DeliveryView>, DomainError> {
  return useCase("listDeliveries", () =>
    pageOfDeliveries(deps, actor, listDeliveriesQuery, query, (f) => ({ webhookId: f.webhook_id })),
  );
}

/** One subscription's deliveries, newest first. */
export function listWebhookDeliveries(
  deps: Pick<Deps, "storage">,
  actor: Actor,
  webhookId: string,
  query: unknown,
): ResultAsync<Page<DeliveryView>, DomainError> {
  return useCase("listWebhookDeliveries", async () => {
    if (!(await findWebhook(deps.storage, actor.organizationId, webhookId))) {
      return err(webhookNotFound(webhookId));
    }
    return pageOfDeliveries(deps, actor, listDeliveriesOfQuery, query, () => ({ webhookId }));
  });
}

/** The deliveries of one message's events, newest first. */
export function listMessageDeliveries(
  deps: Pick<Deps, "storage">,
  actor: Actor,
  messageId: string,
  query: unknown = {},
): ResultAsync<Page<DeliveryView>, DomainError> {
  return useCase("listMessageDeliveries", async () => {
    if (!(await findMessage(deps.storage, actor.organizationId, messageId))) {
      return err(messageNotFound(messageId));
    }
    return pageOfDeliveries(deps, actor, listDeliveriesOfQuery, query, () => ({ messageId }));
  });
}

/** One delivery with every attempt, oldest first. */
export const getDelivery: ShowOne<DeliveryWithAttemptsView> = showOne(
  "getDelivery",
  findDelivery,
  deliveryNotFound,
  async (delivery, deps, actor) => {
    const attempts = await deps.storage.deliveries.listAttempts(actor.organizationId, delivery.id);
    const subscriptions = await subscriptionsById(deps, actor);
    return ok({
      ...toDeliveryView(delivery, subscriptions),
      attempts: attempts.map(toAttemptView),
    });
  },
);
