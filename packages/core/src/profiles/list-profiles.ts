import { err, ok, type ResultAsync } from "neverthrow";
import * as v from "valibot";
import type { Actor, Deps } from "../deps.js";
import { type DomainError, type Issue, validationError } from "../errors.js";
import { toIssues } from "../shared/parse.js";
import { useCase } from "../shared/result.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { phoneNumber } from "./profile-input.js";
import { type ProfileView, toProfileView } from "./profile-view.js";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** `limit` arrives as a query string or a number: an integer from 1 to 100. */
export const pageLimit = v.pipe(
  v.union([v.string(), v.number()], "must be an integer from 1 to 100."),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const raw = dataset.value;
    const value =
      typeof raw === "number" ? raw : /^[0-9]{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
    if (Number.isInteger(value) && value >= 1 && value <= MAX_PAGE_SIZE) return value;
    addIssue({ message: "must be an integer from 1 to 100." });
    return NEVER;
  }),
  // A query string is text; what it must spell is an integer in range.
  v.metadata({
    openApi: { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
  }),
);

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

/** A page of a list (the list envelope of docs/api.md "Conventions"). */
export interface Page<T> {
  data: T[];
  meta: { has_more: boolean; next_cursor: string | null };
}

/**
 * Lists active profiles oldest first, optionally by exact phone number or email (not both),
 * a page at a time.
 */
export function listProfiles(
  deps: Pick<Deps, "storage">,
  actor: Actor,
  query: unknown,
): ResultAsync<Page<ProfileView>, DomainError> {
  return useCase(async () => {
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

    let afterSeq: number | undefined;
    if (cursor !== undefined) {
      const seq = decodeCursor(cursor);
      if (seq === null) {
        return err(
          validationError(
            [{ path: "cursor", message: "is not a cursor from a previous page.", rule: "cursor" }],
            "The cursor is invalid.",
            "invalid_cursor",
          ),
        );
      }
      afterSeq = seq;
    }

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
      data: page.map(toProfileView),
      meta: { has_more: hasMore, next_cursor: hasMore && last ? encodeCursor(last.seq) : null },
    });
  });
}
