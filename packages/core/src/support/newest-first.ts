import { err, ok, type Result } from "neverthrow";
import * as v from "valibot";
import { type ValidationError, validationError } from "../errors.js";
import type { Sequenced } from "../ports.js";
import { closestName } from "./closest-name.js";
import { encodeCursor } from "./cursor.js";
import { cursorSeq, DEFAULT_PAGE_SIZE, type Page, pageLimit } from "./page.js";
import { toIssues } from "./parse.js";

/** The parameters every newest-first list takes besides its filters. */
export const pageParameters = {
  limit: v.optional(pageLimit),
  cursor: v.optional(v.string("must be a string.")),
};

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An instant filter (`created_after`, `created_before`): ISO 8601 with a time zone, as UTC. */
export const instantFilter = v.pipe(
  v.string("must be an ISO 8601 timestamp."),
  v.check(
    (text) => ISO_INSTANT.test(text) && !Number.isNaN(Date.parse(text)),
    "must be an ISO 8601 timestamp with a time zone, e.g. 2026-01-15T09:00:00Z.",
  ),
  v.transform((text) => new Date(Date.parse(text)).toISOString()),
);

/** The parsed query of a newest-first list: its filters and where the page starts. */
export interface ListQuery<F> {
  filters: F;
  pageSize: number;
  /** The `seq` the page starts below (from the cursor); `undefined` for the first page. */
  beforeSeq: number | undefined;
}

/**
 * Parses a list's query with `schema` (a strict object of every parameter, `pageParameters`
 * included) and decodes the cursor; every issue is listed at its parameter's name.
 */
export function parseListQuery<
  F extends { limit?: number | undefined; cursor?: string | undefined },
>(schema: v.GenericSchema<unknown, F>, query: unknown): Result<ListQuery<F>, ValidationError> {
  const parsed = v.safeParse(schema, query, { abortEarly: false });
  if (!parsed.success) return err(validationError(toIssues(parsed.issues)));
  const { limit, cursor } = parsed.output;
  const seq = cursorSeq(cursor);
  if (seq.isErr()) return err(seq.error);
  return ok({ filters: parsed.output, pageSize: limit ?? DEFAULT_PAGE_SIZE, beforeSeq: seq.value });
}

/**
 * The page of rows read newest first with `limit: pageSize + 1`: the extra row only says that
 * more follow, and the cursor is the last shown row's sequence.
 */
export function newestFirstPage<R, T>(
  rows: readonly Sequenced<R>[],
  pageSize: number,
  view: (row: Sequenced<R>) => T,
): Page<T> {
  const shown = rows.slice(0, pageSize);
  const hasMore = rows.length > pageSize;
  const last = shown.at(-1);
  return {
    data: shown.map(view),
    meta: { has_more: hasMore, next_cursor: hasMore && last ? encodeCursor(last.seq) : null },
  };
}

/**
 * A strict object's message for a parameter it does not take, with the closest one suggested
 * (`limt`: did you mean limit?).
 */
export const onlyParameters =
  (names: readonly string[]) =>
  (issue: v.BaseIssue<unknown>): string => {
    if (issue.expected !== "never") return "must be a query string.";
    const suggestion = closestName(String(issue.input), names);
    const takes = `it takes ${names.join(", ")}.`;
    return suggestion === null
      ? `is not a parameter of this endpoint; ${takes}`
      : `is not a parameter of this endpoint; did you mean ${suggestion}? ${takes[0]?.toUpperCase()}${takes.slice(1)}`;
  };
