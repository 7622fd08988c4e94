/**
 * Storage reads one history call keeps in flight: a Worker has at most six connections open at once
 * per request (more wait for one to close), and each read in flight holds its bytes.
 */
export const READS_IN_FLIGHT = 6;

/** `work` over every item, at most `limit` at a time; results in the items' order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
