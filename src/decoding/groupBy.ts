/** Items grouped by key, groups and items in input order. */
export const groupBy = <A, K>(items: ReadonlyArray<A>, key: (a: A) => K): Map<K, Array<A>> => {
  const groups = new Map<K, Array<A>>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return groups;
};
