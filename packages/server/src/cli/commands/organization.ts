import { type DomainError, notFound } from "@tidings/core";
import { err, ok, type Result } from "neverthrow";
import { type Command, type CommandContext, type CommandOutcome, ORG_OPTION } from "../command.js";

/**
 * The `--org` option's organization id, or the error to print. Use cases scoped by an actor trust
 * the caller on the organization; the CLI is that caller, so it checks the id first.
 */
export async function findOrganization(
  context: CommandContext,
): Promise<Result<string, DomainError>> {
  const id = String(context.flags.org);
  const org = await context.runtime.deps.storage.organizations.get(id);
  return org ? ok(org.id) : err(notFound("organization", id, "organization_not_found"));
}

/** An `--org ORG` command without that option: it runs with the organization's id. */
export interface OrganizationCommand extends Omit<Command, "options" | "required" | "run"> {
  run(context: CommandContext, organizationId: string): Promise<CommandOutcome>;
}

/** A command whose one option is `--org ORG`: it runs once the organization is found. */
export const organizationCommand = (command: OrganizationCommand): Command => ({
  ...command,
  options: { org: ORG_OPTION },
  required: ["org"],
  async run(context) {
    const org = await findOrganization(context);
    return org.isErr() ? err(org.error) : command.run(context, org.value);
  },
});
