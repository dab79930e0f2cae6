/**
 * A function remembering its results by key, for derived values that hot paths ask for again and
 * again (normalised origins, key hashes, statement texts). Once `max` keys are held it forgets
 * them all and starts afresh: simpler than an LRU, and enough for working sets far below `max`.
 */
export function memoize<K, V>(compute: (key: K) => V, max = 10_000): (key: K) => V {
  const remembered = new Map<K, V>();
  return (key) => {
    // One lookup on a hit; `has` only for a remembered undefined.
    const hit = remembered.get(key);
    if (hit !== undefined || remembered.has(key)) return hit as V;
    const value = compute(key);
    if (remembered.size >= max) remembered.clear();
    remembered.set(key, value);
    return value;
  };
}
