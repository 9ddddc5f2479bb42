/**
 * Room on each page of PostgreSQL's `deliveries` for a row's next version (see the PostgreSQL
 * adapter's migration of the same version). SQLite has no such setting: a row is rewritten in
 * place in its B-tree, and only the indexes whose columns changed are written. Nothing to do.
 */
export const deliveriesFillfactor = "";
