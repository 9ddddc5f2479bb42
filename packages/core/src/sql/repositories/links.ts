import type { LinkRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

/**
 * Tracked links' reads, the same SQL on both databases; the insert of a send's links and the
 * counting of a click are each database's own (one statement each).
 */
export function linkReads<A extends boolean>(
  access: SqlAccess<A>,
): Styled<Pick<LinkRepository, "get" | "listForMessage">, A> {
  const links = access.table("links");
  return {
    get: (code) => links.one("code = ?", [code]),
    listForMessage: (organizationId, messageId) =>
      links.many("message_id = ? AND organization_id = ?", [messageId, organizationId]),
  };
}
