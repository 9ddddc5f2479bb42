/**
 * The WHERE clause and values of a newest-first page: one `column = $n` per filter present
 * (or the condition given, with `$?` where its value goes), every one combined with AND,
 * `seq < $n` for the pages after the first, and the limit as the last value.
 */
export function pageFilter(
  filters: ReadonlyArray<readonly [condition: string, value: unknown]>,
  beforeSeq: number | undefined,
  limit: number,
): { where: string; values: unknown[]; limitParam: string } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const add = (condition: string, value: unknown) => {
    values.push(value);
    conditions.push(condition.replace("$?", `$${values.length}`));
  };
  for (const [condition, value] of filters) if (value !== undefined) add(condition, value);
  if (beforeSeq !== undefined) add("seq < $?", beforeSeq);
  values.push(limit);
  return { where: conditions.join(" AND "), values, limitParam: `$${values.length}` };
}
