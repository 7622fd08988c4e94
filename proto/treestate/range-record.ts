import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes, equalBytes } from "../bytes.ts";
import { decodeCompactFrontier, encodeCompactFrontier } from "./compact-frontier.ts";
import type { LegacyTree } from "./legacy-tree.ts";
import { corrupt, DIGEST_PREFIX_BYTES, type TreeStateEntry } from "./range-layout.ts";

/** The three note commitment trees after one block; `undefined` = pool not active yet. */
export interface PoolTrees {
  sapling?: LegacyTree;
  orchard?: LegacyTree;
  ironwood?: LegacyTree;
}

export const POOL_ORDER = ["sapling", "orchard", "ironwood"] as const;

export function encodeRecord(trees: PoolTrees): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const pool of POOL_ORDER) {
    const tree = trees[pool];
    parts.push(Uint8Array.of(tree ? 1 : 0));
    if (tree) parts.push(encodeCompactFrontier(tree));
  }
  return concatBytes(parts);
}

export function recordDigestPrefix(record: Uint8Array): Uint8Array {
  return sha256(record).slice(0, DIGEST_PREFIX_BYTES);
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
