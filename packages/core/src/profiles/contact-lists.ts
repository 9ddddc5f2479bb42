import { err, ok, type ResultAsync } from "neverthrow";
import * as v from "valibot";
import type { Actor, Deps } from "../deps.js";
import { type DomainError, notFound } from "../errors.js";
import type { ContactListRecord } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { isPrefixedId } from "../support/ids.js";
import { parseInput, strictFields } from "../support/parse.js";
import { useCase } from "../support/result.js";
import { type ShowOne, showOne } from "../support/show-one.js";
import { findProfile, profileNotFound } from "./find-profile.js";

/** A contact list as the core API shows it. Lists have no HTTP endpoint. */
export interface ContactListView {
  list_id: string;
  name: string;
  created_at: string;
}

const toView = (list: ContactListRecord): ContactListView => ({
  list_id: list.id,
  name: list.name,
  created_at: list.createdAt,
});

const listName = v.pipe(
  v.string("must be a string."),
  v.trim(),
  v.nonEmpty("must not be empty."),
  v.maxLength(100, "must be at most 100 characters long."),
);

const addMembersInput = strictFields(
  {
    list: listName,
    profile_ids: v.pipe(
      v.array(v.string(), "must be an array of profile ids."),
      v.minLength(1, "must name at least one profile."),
      v.maxLength(10_000, "must name at most 10000 profiles."),
    ),
  },
  "must be a JSON object.",
);

/**
 * Adds active profiles to the list with this name, creating the list when the organization has
 * none by that name. All or nothing: an unknown profile id is 404 and nothing is added.
 */
export function addProfilesToList(
  deps: Pick<Deps, "storage" | "ids" | "clock">,
  actor: Actor,
  input: unknown,
): ResultAsync<{ list: ContactListView; added: number }, DomainError> {
  return useCase("addProfilesToList", async () => {
    const parsed = parseInput(addMembersInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const { list: name, profile_ids } = parsed.value;
    const now = isoAt(deps.clock.now());
    return deps.storage.transaction(async (tx) => {
      for (const profileId of profile_ids) {
        if (!(await findProfile(tx, actor.organizationId, profileId))) {
          return err(profileNotFound(profileId));
        }
      }
      let list = await tx.contactLists.findByName(actor.organizationId, name);
      if (!list) {
        list = {
          id: deps.ids.prefixed("lst"),
          organizationId: actor.organizationId,
          name,
          createdAt: now,
        };
        await tx.contactLists.insert(list);
      }
      let added = 0;
      for (const profileId of new Set(profile_ids)) {
        const membership = {
          listId: list.id,
          profileId,
          organizationId: actor.organizationId,
          addedAt: now,
        };
        if (await tx.contactLists.addMember(membership)) added += 1;
      }
      return ok({ list: toView(list), added });
    });
  });
}

/** Removes a profile from a list; 404 when either is unknown or it was not a member. */
export function removeProfileFromList(
  deps: Pick<Deps, "storage">,
  actor: Actor,
  listId: string,
  profileId: string,
): ResultAsync<void, DomainError> {
  return useCase("removeProfileFromList", async () => {
    const removed = await deps.storage.contactLists.removeMember(
      actor.organizationId,
      listId,
      profileId,
    );
    if (!removed)
      return err(
        notFound("contact list membership", `${listId}/${profileId}`, "contact_list_not_found"),
      );
    return ok(undefined);
  });
}

/** The organization's contact lists, oldest first. */
export function listContactLists(
  deps: Pick<Deps, "storage">,
  actor: Actor,
): ResultAsync<ContactListView[], DomainError> {
  return useCase("listContactLists", async () =>
    ok((await deps.storage.contactLists.list(actor.organizationId)).map(toView)),
  );
}

/** The public ids of the active profiles in a list, in the order they were added. */
export const listContactListMembers: ShowOne<string[]> = showOne(
  "listContactListMembers",
  async (repositories, organizationId, id) =>
    isPrefixedId(id, "lst") ? repositories.contactLists.get(organizationId, id) : null,
  (id) => notFound("contact list", id, "contact_list_not_found"),
  async (list, deps, actor) =>
    ok(await deps.storage.contactLists.listMembers(actor.organizationId, list.id)),
);

/** The ids of the lists an active profile belongs to. */
export const listProfileContactLists: ShowOne<string[]> = showOne(
  "listProfileContactLists",
  findProfile,
  profileNotFound,
  async (profile, deps, actor) =>
    ok(await deps.storage.contactLists.listsOfProfile(actor.organizationId, profile.id)),
);
