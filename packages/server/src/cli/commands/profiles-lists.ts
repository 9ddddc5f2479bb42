import { addProfilesToList } from "@tidings/core";
import { err, ok } from "neverthrow";
import { type Command, ORG_OPTION } from "../command.js";
import { findOrganization } from "./organization.js";

/** `profiles lists add --org ORG --list NAME PUBLIC_ID…`: creates the list when it is new. */
export const profilesListsAdd: Command = {
  name: ["profiles", "lists", "add"],
  summary: "Add profiles to a contact list (created when new); all or nothing.",
  usage: "--org ORG --list NAME PUBLIC_ID [PUBLIC_ID…]",
  options: {
    org: ORG_OPTION,
    list: { type: "string", value: "NAME", help: "The contact list's name; created when new." },
  },
  required: ["org", "list"],
  positionals: { min: 1, max: 10_000 },
  async run(context) {
    const org = await findOrganization(context);
    if (org.isErr()) return err(org.error);
    const actor = { organizationId: org.value, apiKeyId: null };
    const added = await addProfilesToList(context.runtime.deps, actor, {
      list: context.flags.list,
      profile_ids: context.positionals,
    });
    if (added.isErr()) return err(added.error);
    const { list, added: count } = added.value;
    return ok({
      json: added.value,
      human: `Added ${count} profile${count === 1 ? "" : "s"} to the list ${JSON.stringify(list.name)} (${list.list_id}).`,
    });
  },
};
