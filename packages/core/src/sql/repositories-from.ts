/**
 * Every repository, each made by its factory in `factories` (one per repository of the port,
 * under the port's name) from the same `connection`. An adapter keeps its factories in one
 * module and passes the module itself, so the port's list of repositories is written once.
 */
export function repositoriesFrom<C, R>(
  factories: { readonly [K in keyof R]: (connection: C) => R[K] },
  connection: C,
): R {
  return Object.fromEntries(
    Object.entries(factories).map(([name, make]) => [
      name,
      (make as (connection: C) => unknown)(connection),
    ]),
  ) as R;
}
