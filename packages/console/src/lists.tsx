import { type DomainError, type Page, validationError } from "@tidings/core";
import type { Result } from "neverthrow";
import type { ComponentChildren } from "preact";
import {
  type FieldErrors,
  FormProblems,
  type PageFrame,
  RecordTable,
  TextField,
} from "./components.js";
import { fieldErrorsOf, type PageContext } from "./context.js";

/** How many rows a console list shows at once. */
const LIST_PAGE_SIZE = "25";

/** A list's filters as they stand in its URL, each `""` when absent. */
export type Filters = Record<string, string>;

/** One page of a filtered list, as its page shows it. */
export interface ListPage<T> {
  rows: T[];
  filters: Filters;
  /** Problems of the filters, by filter field; `""` for a stale page link. */
  errors: FieldErrors;
  /** The first page (once past it) and the next page, filters kept; `null` when none. */
  first: string | null;
  next: string | null;
  /** Whether the filters were accepted (otherwise `errors` says why, and there are no rows). */
  read: boolean;
}

/**
 * The URL of a list page with its filters (empty ones left out) and, for a later page, its
 * cursor, so any page of any filtered list can be bookmarked or shared.
 */
export function listHref(
  frame: PageFrame,
  path: string,
  filters: Filters,
  cursor?: string | null,
): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value !== "") params.set(name, value);
  if (cursor) params.set("cursor", cursor);
  const query = params.toString();
  return `${frame.base}${path}${query === "" ? "" : `?${query}`}`;
}

/** The filters present, as the query a list use case takes. */
export const queryOf = (filters: Filters): Record<string, string> =>
  Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== ""));

/**
 * Reads the page of the list at `path` that the URL asks for: its `filters` (by name), its
 * cursor, and `LIST_PAGE_SIZE` rows from `read`, which gets the query to pass to the use case.
 * Filters that are no text, or that the use case refuses, come back as problems by field
 * (`fieldOf` maps a parameter to its field) and no rows.
 */
export async function readList<T>(
  context: PageContext,
  path: string,
  names: readonly string[],
  read: (
    query: Record<string, string>,
    filters: Filters,
  ) => PromiseLike<Result<Page<T>, DomainError>>,
  fieldOf: (parameter: string) => string = (parameter) => parameter,
): Promise<ListPage<T>> {
  const { request, frame } = context;
  const filters = Object.fromEntries(
    names.map((name) => [name, (request.query.get(name) ?? "").trim()]),
  );
  const cursor = (request.query.get("cursor") ?? "").trim();
  const answer =
    request.queryIssues.length > 0
      ? null
      : await read(
          { ...queryOf(filters), limit: LIST_PAGE_SIZE, ...(cursor ? { cursor } : {}) },
          filters,
        );
  const error =
    answer === null ? validationError(request.queryIssues) : answer.isErr() ? answer.error : null;
  const page = answer?.isOk() ? answer.value : null;
  return {
    rows: page?.data ?? [],
    filters,
    errors: error === null ? {} : filterErrorsOf(error, fieldOf),
    first: cursor === "" ? null : listHref(frame, path, filters),
    next: page?.meta.next_cursor ? listHref(frame, path, filters, page.meta.next_cursor) : null,
    read: page !== null,
  };
}

/**
 * The GET form above a list: its filter fields and one button, then the problems of the
 * filters. It sends no cursor, so a new filter starts at the first page.
 */
export function FilterForm(props: {
  frame: PageFrame;
  path: string;
  label: string;
  errors: FieldErrors;
  button?: string | undefined;
  children: ComponentChildren;
}) {
  return (
    <>
      <form
        method="get"
        action={`${props.frame.base}${props.path}`}
        class="filters"
        aria-label={props.label}
      >
        {props.children}
        <button type="submit" class="secondary">
          {props.button ?? "Filter"}
        </button>
      </form>
      <FormProblems errors={props.errors} />
    </>
  );
}

/**
 * A page of a filtered list as a table: the filter form above it (its fields, sent to `path`),
 * what the filters leave unsaid (`note`), a row a record, and the pager below.
 */
export function ListTable(props: {
  frame: PageFrame;
  path: string;
  list: ListPage<unknown>;
  heading: string;
  empty: string;
  columns: readonly string[];
  /** The filter form's accessible name and button (default: Filter). */
  filterLabel: string;
  filterButton?: string | undefined;
  filters: ComponentChildren;
  note?: ComponentChildren;
  children: ComponentChildren;
}) {
  const { frame, list } = props;
  return (
    <RecordTable
      id="list"
      heading={props.heading}
      empty={props.empty}
      columns={props.columns}
      count={list.rows.length}
      controls={
        <>
          <FilterForm
            frame={frame}
            path={props.path}
            label={props.filterLabel}
            button={props.filterButton}
            errors={list.errors}
          >
            {props.filters}
          </FilterForm>
          {props.note}
        </>
      }
      after={<Pager list={list} />}
    >
      {props.children}
    </RecordTable>
  );
}

/** The search box of a list: a `type="search"` field named `q`, labelled "Search". */
export function SearchBox(props: { value: string | undefined; errors: FieldErrors; hint: string }) {
  return (
    <TextField
      name="q"
      label="Search"
      type="search"
      value={props.value}
      errors={props.errors}
      hint={props.hint}
    />
  );
}

/** Links to the first and the next page of a list, its filters kept. */
export function Pager(props: { list: Pick<ListPage<unknown>, "first" | "next"> }) {
  const { first, next } = props.list;
  if (!first && !next) return null;
  return (
    <nav aria-label="Pages" class="pager">
      {first && <a href={first}>First page</a>}
      {next && (
        <a href={next} rel="next">
          Next page
        </a>
      )}
    </nav>
  );
}

/**
 * Problems of a list's query by the filter field each belongs to (`fieldOf` maps a parameter
 * to its field); a bad cursor reads as a stale page link.
 */
function filterErrorsOf(
  error: DomainError,
  fieldOf: (path: string) => string = (path) => path,
): FieldErrors {
  const { cursor, limit, ...errors } = fieldErrorsOf(error, fieldOf);
  if (cursor || limit) {
    errors[""] = [
      ...(errors[""] ?? []),
      "This page link is out of date; start again from the first page.",
    ];
  }
  return errors;
}
