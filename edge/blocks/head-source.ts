import { LightedgeError } from "../../proto/errors.ts";
import { decodeHead, type HeadObject, headKey } from "../../proto/range/index.ts";
import type { ObjectReader } from "../store/index.ts";
import { readAll } from "./read-all.ts";

/** The head object of a network, cached briefly: GetLatestBlock is at most `ttlMs` stale. */
export interface HeadSource {
  /** The head, or null when nothing is sealed yet for this network. */
  head(network: string): Promise<HeadObject | null>;
}

export function createHeadSource(
  reader: ObjectReader,
  ttlMs: number,
  now: () => number = Date.now,
): HeadSource {
  // In-flight promises are cached too, so a burst of requests costs one read per TTL.
  const cache = new Map<string, { at: number; value: Promise<HeadObject | null> }>();
  const warned = new Set<string>();
  return {
    head(network) {
      const hit = cache.get(network);
      if (hit !== undefined && now() - hit.at < ttlMs) return hit.value;
      const value = readHead(reader, network).then((head) => {
        if (head === null && !warned.has(network)) {
          warned.add(network);
          console.warn(JSON.stringify({ level: "warn", msg: noHeadWarning(network), network }));
        }
        return head;
      });
      cache.set(network, { at: now(), value });
      value.catch(() => cache.delete(network));
      return value;
    },
  };
}

async function readHead(reader: ObjectReader, network: string): Promise<HeadObject | null> {
  const object = await reader.get(headKey(network));
  if (object === null) return null;
  const head = decodeHead(await readAll(object.body));
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
