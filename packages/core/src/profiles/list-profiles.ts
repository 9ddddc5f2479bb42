import { err, ok, type ResultAsync } from "neverthrow";
import * as v from "valibot";
import type { Actor, Deps } from "../deps.js";
import { type DomainError, type Issue, validationError } from "../errors.js";
import { encodeCursor } from "../support/cursor.js";
import { cursorSeq, DEFAULT_PAGE_SIZE, type Page, pageLimit } from "../support/page.js";
import { toIssues } from "../support/parse.js";
import { useCase } from "../support/result.js";
import { type ProfileWithSuppressions, withSuppressed } from "./get-profile.js";
import { phoneNumber } from "./profile-input.js";

export type { Page } from "../support/page.js";
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageLimit } from "../support/page.js";

/** GET /v1/profiles query parameters. */
export const listProfilesQuery = v.strictObject(
  {
    phone_number: v.optional(phoneNumber("must be a string.")),
    email: v.optional(
      v.pipe(v.string(), v.trim(), v.nonEmpty("must not be empty."), v.maxLength(254)),
    ),
    limit: v.optional(pageLimit),
    cursor: v.optional(v.string()),
  },
  "only phone_number, email, limit and cursor are allowed.",
);

/**
 * Lists active profiles oldest first, optionally by exact phone number or email (not both),
 * a page at a time.
 */
export function listProfiles(
  deps: Pick<Deps, "storage" | "secretBox">,
  actor: Actor,
  query: unknown,
): ResultAsync<Page<ProfileWithSuppressions>, DomainError> {
  return useCase("listProfiles", async () => {
    const parsed = v.safeParse(listProfilesQuery, query, { abortEarly: false });
    const issues: Issue[] = parsed.success ? [] : toIssues(parsed.issues);
    const raw = (typeof query === "object" && query !== null ? query : {}) as Record<
      string,
      unknown
    >;
    if (raw.phone_number !== undefined && raw.email !== undefined) {
      issues.push({
        path: "email",
        message: "phone_number and email are mutually exclusive: send one or the other.",
        rule: "mutually_exclusive",
      });
    }
    if (!parsed.success || issues.length > 0) return err(validationError(issues));
    const { phone_number, email, cursor } = parsed.output;
    const pageSize = parsed.output.limit ?? DEFAULT_PAGE_SIZE;

    const seq = cursorSeq(cursor);
    if (seq.isErr()) return err(seq.error);
    const afterSeq = seq.value;

    const rows = await deps.storage.profiles.list({
      organizationId: actor.organizationId,
      phoneNumber: phone_number,
      email,
      afterSeq,
      limit: pageSize + 1,
    });
    const page = rows.slice(0, pageSize);
    const hasMore = rows.length > pageSize;
    const last = page.at(-1);
    return ok({
      data: await withSuppressed(deps, actor.organizationId, page),
      meta: { has_more: hasMore, next_cursor: hasMore && last ? encodeCursor(last.seq) : null },
    });
  });
}
