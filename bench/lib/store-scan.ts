import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { decodeRangeMeta } from "../../proto/range/index.ts";

const PROJECTIONS = ["shielded", "full", "nullifiers"] as const;
export type StoredProjection = (typeof PROJECTIONS)[number];

export interface StoreScan {
  network: string;
  rangeSize: number;
  firstHeight: number;
  /** Last sealed height (the head's tip). */
  sealedTip: number;
  /** Every object's key (as the edge's R2 bucket holds it) and file path. */
  objects: { key: string; path: string; bytes: number }[];
  /**
   * Stored bytes per projection's data objects, of metadata + head, and of the tree states
   * (`.trees.bin` and subtree roots: not block storage, so not in `storage.overhead`), and of the
   * block-hash index shards, and of the range bundles (the data objects once more, by tens).
   */
  storedBytes: Record<StoredProjection | "meta" | "trees" | "hashIndex" | "bundles", number>;
  /** Node-free history: raw-block objects, transaction tables, transaction and address index levels. */
  historyBytes: Record<"raw" | "txTables" | "txIndex" | "addressIndex", number>;
  /** Protobuf message bytes per projection (stored minus frame headers). */
  rawBytes: Record<StoredProjection, number>;
}

/** A range bundle's key (`…/r<size>/b<ranges>/…`, proto/range/bundles.ts): its ranges' bytes once more. */
export function isBundleKey(key: string): boolean {
  return /\/r\d+\/b\d+\//.test(key);
}

/** Reads a directory store written by the origin: sizes per projection, keys, the sealed tip. */
export function scanStore(storeDir: string, network: string): StoreScan {
  const root = join(storeDir, "v1", network);
  const head = JSON.parse(readFileSync(join(root, "head.json"), "utf8")) as {
    rangeSize: number;
    firstHeight: number;
    tip: { height: number };
  };
  const rangeDir = join(root, `r${head.rangeSize}`);
  const objects = [{ key: `v1/${network}/head.json`, path: join(root, "head.json"), bytes: 0 }];
  // Range objects, and the block-hash index's shards under hash/ (proto/range-format.md §Hash index).
  for (const name of readdirSync(rangeDir, { recursive: true, encoding: "utf8" }).sort())
    if (statSync(join(rangeDir, name)).isFile())
      objects.push({ key: `v1/${network}/r${head.rangeSize}/${name}`, path: join(rangeDir, name), bytes: 0 });
  // Subtree roots (GetSubtreeRoots), written by the tree-state backfill beside the ranges.
  const subtrees = join(root, "subtrees");
  if (existsSync(subtrees))
    for (const name of readdirSync(subtrees, { recursive: true, encoding: "utf8" }).sort())
      if (statSync(join(subtrees, name)).isFile())
        objects.push({ key: `v1/${network}/subtrees/${name}`, path: join(subtrees, name), bytes: 0 });
  const storedBytes = { shielded: 0, full: 0, nullifiers: 0, meta: 0, trees: 0, hashIndex: 0, bundles: 0 };
  // Node-free history (proto/range-format.md §Node-free history): counted apart, not as block storage.
  const historyBytes = { raw: 0, txTables: 0, txIndex: 0, addressIndex: 0 };
  let frames = 0;
  for (const o of objects) {
    o.bytes = statSync(o.path).size;
    const kind = /\.(shielded|full|nullifiers)\.bin$/.exec(o.path)?.[1] as StoredProjection | undefined;
    const history = o.key.endsWith(".raw.bin")
      ? "raw"
      : o.key.endsWith(".txs.bin")
        ? "txTables"
        : o.key.includes("/txid/")
          ? "txIndex"
          : o.key.includes("/taddr/")
            ? "addressIndex"
            : undefined;
    if (history !== undefined) {
      historyBytes[history] += o.bytes;
      continue;
    }
    const trees = o.path.endsWith(".trees.bin") || o.key.includes("/subtrees/");
    const hashIndex = o.key.includes("/hash/");
    if (isBundleKey(o.key)) storedBytes.bundles += o.bytes;
    else storedBytes[trees ? "trees" : hashIndex ? "hashIndex" : (kind ?? "meta")] += o.bytes;
    if (o.path.endsWith(".meta.bin")) frames += decodeRangeMeta(readFileSync(o.path)).blockCount;
  }
  const raw = (p: StoredProjection) => storedBytes[p] - frames * FRAME_HEADER_BYTES;
  return {
    network,
    rangeSize: head.rangeSize,
    firstHeight: head.firstHeight,
    sealedTip: head.tip.height,
    objects,
    storedBytes,
    historyBytes,
    rawBytes: { shielded: raw("shielded"), full: raw("full"), nullifiers: raw("nullifiers") },
  };
}

/**
 * Concatenates one projection's data objects into one file (exactly the frames the edge streams
 * for GetBlockRange) and returns each height's byte offset, so the static baseline can serve the
 * same bytes for any range: offsets[h - firstHeight] .. offsets[h + 1 - firstHeight].
 */
export function concatProjection(scan: StoreScan, projection: StoredProjection, out: string): Float64Array {
  const files = scan.objects.filter((o) => o.path.endsWith(`.${projection}.bin`) && !isBundleKey(o.key));
  const offsets = new Float64Array(scan.sealedTip - scan.firstHeight + 2);
  const fd = openSync(out, "w");
  let at = 0;
  let block = 0;
  try {
    for (const f of files) {
      const bytes = readFileSync(f.path);
      for (let i = 0; i < bytes.length; block++) {
        offsets[block] = at + i;
        i += FRAME_HEADER_BYTES + bytes.readUInt32BE(i + 1);
      }
      writeSync(fd, bytes);
      at += bytes.length;
    }
  } finally {
    closeSync(fd);
  }
  offsets[block] = at;
  return offsets;
}
