import { createOrganization } from "@tidings/core";
import { err, ok } from "neverthrow";
import type { Command } from "../command.js";

/** `orgs create --name NAME` → `{ org_id, name, created_at }`. */
export const orgsCreate: Command = {
  name: ["orgs", "create"],
  summary: "Create an organization.",
  usage: "--name NAME",
  options: { name: { type: "string" } },
  required: ["name"],
  async run({ runtime, flags }) {
    const created = await createOrganization(runtime.deps, { name: flags.name });
    if (created.isErr()) return err(created.error);
    const org = created.value;
    return ok({
      json: { org_id: org.id, name: org.name, created_at: org.createdAt },
      human: `Created organization ${org.id} (${org.name}).`,
    });
  },
};
