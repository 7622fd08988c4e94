import { equalBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import {
  assertHeadMatchesRange,
  decodeHead,
  type HeadObject,
  headKey,
  lastWireHash,
  PROJECTIONS,
  rangeKeys,
  verifySection,
} from "../../proto/range/index.ts";
import type { BlobStore } from "../store/index.ts";
import { codecOptions } from "./codec-options.ts";
import { createSealedReader } from "./sealed-reader.ts";

export interface AuditReport {
  head: HeadObject | null;
  /** Ranges checked (every range the head refers to). */
  ranges: number;
  /** Bytes read and hashed. */
  bytes: number;
}

/**
 * Reader-side invariants of a store, checked in full: the head refers only to complete ranges
 * (every data object present, with the length and SHA-256 its metadata records), the ranges chain
 * by prevHash with no gaps, and the head's tip is the last range's last block. Throws `corrupt`
 * on the first violation. For tests, audits and a second origin adopting a bucket.
 */
export async function auditStore(store: BlobStore, network: string, rangeSize: number): Promise<AuditReport> {
  const bytes = await store.get(headKey(network));
  if (bytes === null) return { head: null, ranges: 0, bytes: 0 };
  const head = decodeHead(bytes);
  const reader = createSealedReader(store, network, rangeSize);
  const first = head.firstHeight / rangeSize;
  let read = 0;
  let previous: Uint8Array | undefined;
  for (let index = first; index < first + head.rangeCount; index++) {
    const meta = await reader.meta(index);
    if (previous && !equalBytes(meta.parentWireHash, previous)) {
      throw new LightedgeError(
        "corrupt",
        "store-audit",
        `range ${index} does not chain to range ${index - 1}`,
      );
    }
    for (const projection of PROJECTIONS) {
      const key = rangeKeys(network, rangeSize, index).data[projection];
      const data = await store.get(key);
      if (data === null) throw new LightedgeError("corrupt", "store-audit", `${key} is missing`);
      verifySection(meta, projection, data, codecOptions);
      read += data.length;
    }
    previous = lastWireHash(meta);
    if (index === first + head.rangeCount - 1) assertHeadMatchesRange(head, meta);
  }
  return { head, ranges: head.rangeCount, bytes: read };
}
