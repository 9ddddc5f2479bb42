import type { ContactListRepository } from "../../ports.js";
import type { SqlAccess, Styled } from "../access.js";

/**
 * Contact lists (names unique per organization) and their memberships, but the members of a
 * list, read with a join each database plans its own way.
 */
export function contactListRows<A extends boolean>(
  access: SqlAccess<A>,
): Styled<Omit<ContactListRepository, "listMembers">, A> {
  const lists = access.table("contactLists");
  const memberships = access.table("listMemberships");
  return {
    insert: (list) =>
      access.map(lists.insertNew(list, "(organization_id, name)"), (inserted) =>
        inserted ? undefined : ("name_taken" as const),
      ),
    get: (organizationId, id) => lists.one("id = ? AND organization_id = ?", [id, organizationId]),
    findByName: (organizationId, name) =>
      lists.one("organization_id = ? AND name = ?", [organizationId, name]),
    list: (organizationId) =>
      lists.many("organization_id = ? ORDER BY created_at, id", [organizationId]),
    addMember: (membership) => memberships.insertNew(membership, "(list_id, profile_id)"),
    removeMember: (organizationId, listId, profileId) =>
      access.map(
        memberships.delete("list_id = ? AND profile_id = ? AND organization_id = ?", [
          listId,
          profileId,
          organizationId,
        ]),
        (removed) => removed === 1,
      ),
    listsOfProfile: (organizationId, profileId) =>
      access.map(
        memberships.many("profile_id = ? AND organization_id = ? ORDER BY added_at, seq", [
          profileId,
          organizationId,
        ]),
        (rows) => rows.map((membership) => membership.listId),
      ),
  };
}
