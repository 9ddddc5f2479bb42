import { createOrganization, notFound, type OrganizationRecord } from "@tidings/core";
import { err, ok } from "neverthrow";
import type { Command } from "../command.js";
import { table } from "../output.js";

/** An organization as the CLI shows it, named as the API names ids. */
const orgView = (org: OrganizationRecord) => ({
  org_id: org.id,
  name: org.name,
  created_at: org.createdAt,
});

/** `orgs create --name NAME` → `{ org_id, name, created_at }`. */
export const orgsCreate: Command = {
  name: ["orgs", "create"],
  summary: "Create an organization.",
  usage: "--name NAME",
  options: { name: { type: "string", help: "The organization's name." } },
  required: ["name"],
  async run({ runtime, flags }) {
    const created = await createOrganization(runtime.deps, { name: flags.name });
    if (created.isErr()) return err(created.error);
    const org = created.value;
    return ok({
      json: orgView(org),
      human: `Created organization ${org.id} (${org.name}).`,
    });
  },
};

/**
 * `orgs list [--name NAME]`: every organization, oldest first, so the id every `--org` needs
 * can be found again; `--name` keeps those so named (ignoring case).
 */
export const orgsList: Command = {
  name: ["orgs", "list"],
  summary: "List the organizations, oldest first, with the id every --org takes.",
  usage: "[--name NAME]",
  options: {
    name: { type: "string", help: "Only the organizations of this name (ignoring case)." },
  },
  async run({ runtime, flags, io }) {
    const wanted = typeof flags.name === "string" ? flags.name.trim().toLowerCase() : null;
    const orgs = (await runtime.deps.storage.organizations.list())
      .filter((org) => wanted === null || org.name.toLowerCase() === wanted)
      .map(orgView);
    const rows = orgs.map((org) => [org.org_id, org.created_at, org.name]);
    return ok({
      json: { data: orgs },
      human:
        orgs.length === 0
          ? wanted === null
            ? "No organizations yet; create one with `tidings orgs create --name NAME`."
            : `No organization is named ${JSON.stringify(flags.name)}.`
          : table(io.stdout, ["ORG", "CREATED", "NAME"], rows),
    });
  },
};

/** `orgs get ORG_ID`: one organization. */
export const orgsGet: Command = {
  name: ["orgs", "get"],
  summary: "Show an organization.",
  usage: "ORG_ID",
  options: {},
  positionals: { min: 1, max: 1 },
  async run({ runtime, positionals }) {
    const id = positionals[0] ?? "";
    const org = await runtime.deps.storage.organizations.get(id);
    if (org === null) return err(notFound("organization", id, "organization_not_found"));
    const view = orgView(org);
    return ok({
      json: view,
      human: `${view.org_id}  ${view.name}  (created ${view.created_at})`,
    });
  },
};
