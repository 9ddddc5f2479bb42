import { err, ok, type ResultAsync } from "neverthrow";
import * as v from "valibot";
import type { Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import type { OrganizationRecord } from "../ports.js";
import { isoAt } from "../support/clock.js";
import { parseInput, strictFields } from "../support/parse.js";
import { useCase } from "../support/result.js";

const createOrganizationInput = strictFields(
  {
    name: v.pipe(
      v.string("must be a string."),
      v.trim(),
      v.nonEmpty("must not be empty."),
      v.maxLength(200),
    ),
  },
  "must be an object.",
);

/** Creates an organization (CLI / CMS side); everything else belongs to one. */
export function createOrganization(
  deps: Pick<Deps, "storage" | "ids" | "clock">,
  input: unknown,
): ResultAsync<OrganizationRecord, DomainError> {
  return useCase("createOrganization", async () => {
    const parsed = parseInput(createOrganizationInput, input);
    if (parsed.isErr()) return err(parsed.error);
    const org: OrganizationRecord = {
      id: deps.ids.prefixed("org"),
      name: parsed.value.name,
      createdAt: isoAt(deps.clock.now()),
    };
    await deps.storage.organizations.insert(org);
    return ok(org);
  });
}
