import { type DomainError, notFound } from "@tidings/core";
import { err, ok, type Result } from "neverthrow";
import type { CommandContext } from "../command.js";

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
