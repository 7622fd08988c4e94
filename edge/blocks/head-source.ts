import { LightedgeError } from "../../proto/errors.ts";
import { decodeHead, type HeadObject, headKey } from "../../proto/range/index.ts";
import { createRefreshingCache } from "../cache/refreshing.ts";
import type { ObjectReader } from "../store/index.ts";
import { readAll } from "../store/read-all.ts";

/** The head object of a network, cached briefly: at most 2 × `ttlMs` (plus one read) stale. */
export interface HeadSource {
  /** The head, or null when nothing is sealed yet for this network. */
  head(network: string): Promise<HeadObject | null>;
  /** The last head read for this network, without waiting (undefined before the first read). */
  peek(network: string): HeadObject | null | undefined;
}

export function createHeadSource(
  reader: ObjectReader,
  ttlMs: number,
  now: () => number = Date.now,
): HeadSource {
  const warned = new Set<string>();
  // Refreshed in the background once settled (cache/refreshing.ts): a request never waits on the
  // head's read after the isolate's first, so a cached range needs one storage call before its first byte.
  const cache = createRefreshingCache(
    (network) =>
      readHead(reader, network).then((head) => {
        if (head === null && !warned.has(network)) {
          warned.add(network);
          console.warn(JSON.stringify({ level: "warn", msg: noHeadWarning(network), network }));
        }
        return head;
      }),
    ttlMs,
    now,
  );
  return { head: (network) => cache.get(network), peek: (network) => cache.peek(network) };
}

async function readHead(reader: ObjectReader, network: string): Promise<HeadObject | null> {
  const object = await reader.get(headKey(network));
  if (object === null) return null;
  const head = decodeHead(await readAll(object.body, object.size, headKey(network)));
  if (head.network !== network) {
    throw new LightedgeError("corrupt", "edge.head", `head of ${network} describes ${head.network}`);
  }
  return head;
}

/**
 * Said once per isolate (logs) and on /healthz when a served network has no head object: usually
 * the wrong store or NETWORKS (a regtest store served as mainnet), so nothing is read from storage.
 */
export function noHeadWarning(network: string): string {
  return `network ${network} has no head object (${headKey(network)}) in the store: nothing sealed is served, every block is asked of the origin; check NETWORKS and the store`;
}
