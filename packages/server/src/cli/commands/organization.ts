import { type DomainError, notFound } from "@tidings/core";
import type { CommandContext } from "../command.js";

/**
 * The `--org` option's organization, or the error to print. Use cases scoped by an actor trust
 * the caller on the organization; the CLI is that caller, so it checks the id first.
 */
export async function findOrganization(
  context: CommandContext,
): Promise<{ ok: true; id: string } | { ok: false; error: DomainError }> {
  const id = String(context.flags.org);
  const org = await context.runtime.deps.storage.organizations.get(id);
  return org
    ? { ok: true, id: org.id }
    : { ok: false, error: notFound("organization", id, "organization_not_found") };
}
