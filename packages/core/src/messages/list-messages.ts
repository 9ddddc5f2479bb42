import { err, ok, type ResultAsync } from "neverthrow";
import * as v from "valibot";
import type { Actor, Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import { phoneNumber } from "../profiles/profile-input.js";
import { isPrefixedId } from "../support/ids.js";
import {
  instantFilter,
  newestFirstPage,
  onlyParameters,
  pageParameters,
  parseListQuery,
} from "../support/newest-first.js";
import type { Page } from "../support/page.js";
import { useCase } from "../support/result.js";
import { type MessageView, toMessageView } from "./message-view.js";

const MESSAGE_STATUSES = [
  "scheduled",
  "releasing",
  "sent",
  "delivered",
  "seen",
  "clicked",
  "failed",
  "expired",
  "cancelled",
] as const;

const PARAMETERS = [
  "status",
  "campaign_id",
  "client_reference",
  "phone_number",
  "created_after",
  "created_before",
  "limit",
  "cursor",
] as const;

/** GET /v1/messages query parameters; every filter combines with the others. */
export const listMessagesQuery = v.strictObject(
  {
    status: v.optional(
      v.picklist(MESSAGE_STATUSES, `must be one of ${MESSAGE_STATUSES.join(", ")}.`),
    ),
    campaign_id: v.optional(
      v.pipe(
        v.string("must be a string."),
        v.check((id) => isPrefixedId(id, "cmp"), "must be a campaign id (cmp_…)."),
      ),
    ),
    client_reference: v.optional(
      v.pipe(
        v.string("must be a string."),
        v.minLength(1, "must not be empty."),
        v.maxLength(255, "must be at most 255 characters long."),
      ),
    ),
    phone_number: v.optional(phoneNumber("must be a string.")),
    created_after: v.optional(instantFilter),
    created_before: v.optional(instantFilter),
    ...pageParameters,
  },
  onlyParameters(PARAMETERS),
);

/**
 * A page of the caller's organization's messages, newest first, filtered by any of status,
 * campaign, client reference, phone number (normalized to E.164) and creation time.
 */
export function listMessages(
  deps: Pick<Deps, "storage" | "links">,
  actor: Actor,
  query: unknown,
): ResultAsync<Page<MessageView>, DomainError> {
  return useCase("listMessages", async () => {
    const parsed = parseListQuery(listMessagesQuery, query);
    if (parsed.isErr()) return err(parsed.error);
    const { filters, pageSize, beforeSeq } = parsed.value;
    const rows = await deps.storage.messages.listPage({
      organizationId: actor.organizationId,
      status: filters.status,
      campaignId: filters.campaign_id,
      clientReference: filters.client_reference,
      phoneNumber: filters.phone_number,
      createdAfter: filters.created_after,
      createdBefore: filters.created_before,
      beforeSeq,
      limit: pageSize + 1,
    });
    const ids = rows.slice(0, pageSize).map((row) => row.id);
    const links = await deps.storage.links.listForMessages(actor.organizationId, ids);
    const prices = await deps.storage.messages.listPrices(actor.organizationId, ids);
    const base = deps.links?.baseUrl ?? null;
    return ok(
      newestFirstPage(rows, pageSize, (message) =>
        toMessageView(
          message,
          links.filter((link) => link.messageId === message.id),
          base,
          prices.filter((price) => price.messageId === message.id),
        ),
      ),
    );
  });
}
