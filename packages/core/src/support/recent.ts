/**
 * `compute`, remembered for the last `size` distinct keys: a pure function that one request
 * calls several times on the same value (a send's number is read by its gate, its checks and
 * its metrics) then costs one call a request. Oldest first out; not a cache across the
 * traffic of a busy server, whose keys outnumber `size`.
 */
export function recentlyComputed<K, V>(size: number, compute: (key: K) => V): (key: K) => V {
  const recent = new Map<K, V>();
  return (key) => {
    if (recent.has(key)) return recent.get(key) as V;
    const value = compute(key);
    if (recent.size >= size) recent.delete(recent.keys().next().value as K);
    recent.set(key, value);
    return value;
  };
}
