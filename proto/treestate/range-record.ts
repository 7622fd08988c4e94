import { sha256 } from "@noble/hashes/sha2.js";
import { equalBytes } from "../bytes.ts";
import { compactFrontierLength, decodeCompactFrontier, writeCompactFrontier } from "./compact-frontier.ts";
import { type LegacyTree, legacyTreeSize } from "./legacy-tree.ts";
import { corrupt, DIGEST_PREFIX_BYTES, type TreeStateEntry } from "./range-layout.ts";

/** The three note commitment trees after one block; `undefined` = pool not active yet. */
export interface PoolTrees {
  sapling?: LegacyTree;
  orchard?: LegacyTree;
  ironwood?: LegacyTree;
}

export const POOL_ORDER = ["sapling", "orchard", "ironwood"] as const;

/** A SHA-256 implementation (the pure @noble one by default; node:crypto's where the caller has it). */
export type Sha256 = (bytes: Uint8Array) => Uint8Array;

/**
 * One tag byte per pool, then its compact frontier if active; sized first, written in one buffer
 * from `alloc` (zeroed bytes; fresh by default).
 */
export function encodeRecord(
  trees: PoolTrees,
  alloc: (length: number) => Uint8Array = (n) => new Uint8Array(n),
): Uint8Array {
  const pools = POOL_ORDER.map((pool) => trees[pool]);
  const sizes = pools.map((t) => (t ? legacyTreeSize(t) : -1));
  let length = pools.length;
  for (const size of sizes) if (size >= 0) length += compactFrontierLength(size);
  const out = alloc(length);
  let pos = 0;
  pools.forEach((tree, i) => {
    out[pos++] = tree ? 1 : 0;
    if (!tree) return;
    const end = pos + compactFrontierLength(sizes[i]!);
    writeCompactFrontier(out.subarray(pos, end), tree, sizes[i]!);
    pos = end;
  });
  return out;
}

export function recordDigestPrefix(record: Uint8Array, hash: Sha256 = sha256): Uint8Array {
  return hash(record).slice(0, DIGEST_PREFIX_BYTES);
}

/** Decodes a record read on its own; checks it against its table entry's digest prefix. */
export function decodeRecord(record: Uint8Array, entry?: TreeStateEntry): PoolTrees {
  if (
    entry &&
    (record.length !== entry.recordLength || !equalBytes(recordDigestPrefix(record), entry.digestPrefix))
  ) {
    corrupt("record digest mismatch");
  }
  const trees: PoolTrees = {};
  let pos = 0;
  for (const pool of POOL_ORDER) {
    const tag = record[pos++];
    if (tag === 0) continue;
    if (tag !== 1) corrupt(`bad pool tag ${tag}`);
    const { tree, next } = decodeCompactFrontier(record, pos);
    trees[pool] = tree;
    pos = next;
  }
  if (pos !== record.length) corrupt("trailing bytes in record");
  return trees;
}
