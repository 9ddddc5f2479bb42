import { err, type Result, type ResultAsync } from "neverthrow";
import type { Actor, Deps } from "../deps.js";
import type { DomainError, NotFoundError } from "../errors.js";
import type { Repositories } from "../ports.js";
import { useCase } from "./result.js";

/** A use case that reads one record of the caller's organization by its id. */
export type ShowOne<V> = (
  deps: Pick<Deps, "storage" | "links">,
  actor: Actor,
  id: string,
) => ResultAsync<V, DomainError>;

/**
 * The use case named `name` that finds one record of the caller's organization and answers
 * what `show` makes of it; where `find` answers `null` (a malformed, unknown or another
 * organization's id), the record's 404 from `notFound`. Every "get one" of the API has this
 * shape; only what it shows besides the record differs.
 */
export function showOne<R, V>(
  name: string,
  find: (repositories: Repositories, organizationId: string, id: string) => Promise<R | null>,
  notFound: (id: string) => NotFoundError,
  show: (
    record: R,
    deps: Pick<Deps, "storage" | "links">,
    actor: Actor,
  ) => Result<V, DomainError> | Promise<Result<V, DomainError>>,
): ShowOne<V> {
  return (deps, actor, id) =>
    useCase(name, async () => {
      const record = await find(deps.storage, actor.organizationId, id);
      return record ? show(record, deps, actor) : err(notFound(id));
    });
}
