/**
 * Edits needed to turn `a` into `b`, a swap of two neighbours counting as one (optimal string
 * alignment): `phone_numbr` is one edit from `phone_number`, `nmae` one from `name`.
 */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      const row = d[i];
      if (row) row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The name closest to a misspelt one, if one is close: at most a third of it may differ
 * (`nme` is name, `foo` is nothing). The first of equally close names wins.
 */
export function closestName(given: string, names: readonly string[]): string | null {
  let best: { name: string; edits: number } | null = null;
  for (const name of names) {
    const edits = editDistance(given, name);
    if (best === null || edits < best.edits) best = { name, edits };
  }
  return best && best.edits <= Math.max(1, Math.floor(best.name.length / 3)) ? best.name : null;
}
