import { createTreeStateReader, type TreeStateReader } from "../../proto/treestate/index.ts";
import type { ObjectReader } from "./object-reader.ts";
import { objectReadBytes } from "./read-bytes.ts";

/**
 * One tree-state reader per network, built on first use and kept for the isolate's life: its
 * decoded tables are what makes a warm GetTreeState one read (proto/treestate/reader.ts).
 */
export function createTreeStateReaders(reader: ObjectReader): (network: string) => TreeStateReader {
  const readers = new Map<string, TreeStateReader>();
  return (network) => {
    let r = readers.get(network);
    if (r === undefined) {
      // Settled values only: requests must not await each other's reads (proto/lru.ts).
      r = createTreeStateReader({ read: objectReadBytes(reader), network, sharing: "settled" });
      readers.set(network, r);
    }
    return r;
  };
}
