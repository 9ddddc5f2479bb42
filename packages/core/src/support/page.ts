import { err, ok, type Result } from "neverthrow";
import * as v from "valibot";
import { type ValidationError, validationError } from "../errors.js";
import { decodeCursor } from "./cursor.js";

/** Every list's page size rule: 50 unless `limit` says otherwise, at most 100. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** A page of a list: the page envelope. */
export interface Page<T> {
  data: T[];
  meta: { has_more: boolean; next_cursor: string | null };
}

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

/** The sequence in a `cursor` parameter (`undefined` when absent), or 400 `invalid_cursor`. */
export function cursorSeq(cursor: string | undefined): Result<number | undefined, ValidationError> {
  if (cursor === undefined) return ok(undefined);
  const seq = decodeCursor(cursor);
  if (seq !== null) return ok(seq);
  return err(
    validationError(
      [{ path: "cursor", message: "is not a cursor from a previous page.", rule: "cursor" }],
      "The cursor is invalid.",
      "invalid_cursor",
    ),
  );
}
