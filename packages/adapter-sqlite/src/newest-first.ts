/**
 * The WHERE clause and named parameters of a newest-first page: one `column = @name` per
 * filter present (or the condition given), every one combined with AND, `seq < @beforeSeq`
 * for the pages after the first. Only filters that are present become parameters, so each
 * combination is its own cached statement with a plan of its own.
 */
export function pageFilter(
  filters: ReadonlyArray<readonly [condition: string, name: string, value: unknown]>,
  beforeSeq: number | undefined,
): { where: string; params: Record<string, unknown> } {
  const conditions: string[] = [];
  const params: Record<string, unknown> = {};
  for (const [condition, name, value] of filters) {
    if (value === undefined) continue;
    conditions.push(condition);
    params[name] = value;
  }
  if (beforeSeq !== undefined) {
    conditions.push("seq < @beforeSeq");
    params.beforeSeq = beforeSeq;
  }
  return { where: conditions.join(" AND "), params };
}
