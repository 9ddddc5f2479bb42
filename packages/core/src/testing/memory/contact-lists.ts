import type { ContactListRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { assertNew, clone, ofOrganization, oldestFirst, ownedBy } from "./state.js";

/** Contact lists and their memberships in memory. */
export function memoryContactLists(scope: MemoryScope): ContactListRepository {
  return {
    insert: (list) =>
      scope.write("contactLists.insert", (s) => {
        assertNew(s.contactLists, list.id, "contact list");
        const taken = [...s.contactLists.values()].some(
          (l) => l.organizationId === list.organizationId && l.name === list.name,
        );
        if (taken) return "name_taken";
        s.contactLists.set(list.id, clone(list));
        return undefined;
      }),
    get: (organizationId, id) =>
      scope.read("contactLists.get", (s) => ownedBy(s.contactLists.get(id), organizationId)),
    findByName: (organizationId, name) =>
      scope.read(
        "contactLists.findByName",
        (s) =>
          [...s.contactLists.values()].find(
            (l) => l.organizationId === organizationId && l.name === name,
          ) ?? null,
      ),
    list: (organizationId) =>
      scope.read("contactLists.list", (s) =>
        ofOrganization(s.contactLists.values(), organizationId),
      ),
    addMember: (membership) =>
      scope.write("contactLists.addMember", (s) => {
        const exists = s.memberships.some(
          (m) =>
            m.organizationId === membership.organizationId &&
            m.listId === membership.listId &&
            m.profileId === membership.profileId,
        );
        if (exists) return false;
        s.memberships.push(clone(membership));
        return true;
      }),
    removeMember: (organizationId, listId, profileId) =>
      scope.write("contactLists.removeMember", (s) => {
        const before = s.memberships.length;
        s.memberships = s.memberships.filter(
          (m) =>
            !(
              m.organizationId === organizationId &&
              m.listId === listId &&
              m.profileId === profileId
            ),
        );
        return s.memberships.length < before;
      }),
    listMembers: (organizationId, listId) =>
      scope.read("contactLists.listMembers", (s) =>
        oldestFirst(
          s.memberships.filter((m) => {
            if (m.organizationId !== organizationId || m.listId !== listId) return false;
            const profile = s.profiles.get(m.profileId);
            return profile?.organizationId === organizationId && profile.status === "active";
          }),
          (m) => m.addedAt,
        ).map((m) => m.profileId),
      ),
    listsOfProfile: (organizationId, profileId) =>
      scope.read("contactLists.listsOfProfile", (s) =>
        oldestFirst(
          s.memberships.filter(
            (m) => m.organizationId === organizationId && m.profileId === profileId,
          ),
          (m) => m.addedAt,
        ).map((m) => m.listId),
      ),
  };
}
