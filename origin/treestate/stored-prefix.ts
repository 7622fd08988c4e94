/**
 * The contiguous run of ranges whose tree-state objects are stored, from the producer's first
 * range: the sealer uploads ranges concurrently, so they finish out of order, and a snapshot may
 * only go (or a reader be sent to the store) once every range up to it is stored.
 */
export function createStoredPrefix(rangeSize: number, firstIndex: number) {
  const done = new Set<number>();
  let next = firstIndex;
  return {
    mark(index: number) {
      if (index >= next) done.add(index);
      while (done.delete(next)) next++;
    },
    /** Last height of the stored prefix (−1 or a range boundary − 1 before any). */
    through: () => next * rangeSize - 1,
  };
}
