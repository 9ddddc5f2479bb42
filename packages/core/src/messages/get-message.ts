import { err, ok, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import { type DomainError, notFound } from "../errors.js";
import type { MessageRecord, Repositories } from "../ports.js";
import { isUuidV7 } from "../support/ids.js";
import { type ShowOne, showOne } from "../support/show-one.js";
import {
  type MessageEventView,
  type MessageWithEventsView,
  toMessageEventView,
  toMessageView,
} from "./message-view.js";

/** 404 for a message the organization cannot see (malformed, unknown or another's). */
export const messageNotFound = (id: string) => notFound("message", id, "message_not_found");

/** The organization's message, or `null`; a malformed id never reaches storage. */
export async function findMessage(
  repositories: Pick<Repositories, "messages">,
  organizationId: string,
  id: string,
): Promise<MessageRecord | null> {
  if (!isUuidV7(id)) return null;
  return repositories.messages.get(organizationId, id);
}

/** One message of the caller's organization, with its current status and every event. */
export const getMessage: ShowOne<MessageWithEventsView> = showOne(
  "getMessage",
  findMessage,
  messageNotFound,
  async (message, deps, actor) => {
    const events = await deps.storage.messages.listEvents(actor.organizationId, message.id);
    const links = await deps.storage.links.listForMessage(actor.organizationId, message.id);
    const prices = await deps.storage.messages.listPrices(actor.organizationId, [message.id]);
    // Retention deletes a message with its events and links atomically: if it is still there after the
    // events and links were read, they were read whole; if not, it is gone, not a message without events.
    if (!(await findMessage(deps.storage, actor.organizationId, message.id))) {
      return err(messageNotFound(message.id));
    }
    const view = toMessageView(message, links, deps.links?.baseUrl ?? null, prices);
    return ok({ ...view, events: events.map(toMessageEventView) });
  },
);

/** A message's lifecycle events in the order they happened. */
export function listMessageEvents(
  deps: Pick<Deps, "storage">,
  actor: Actor,
  messageId: string,
): ResultAsync<MessageEventView[], DomainError> {
  return getMessage(deps, actor, messageId).map((message) => message.events);
}
