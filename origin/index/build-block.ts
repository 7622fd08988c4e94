import { equalBytes, wireHashOf } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { addressKeyOfScript } from "../../proto/history/index.ts";
import { parseBlock, projectBlock } from "../chain/index.ts";
import { blockHistory } from "../history/block-history.ts";
import type { NodeBlock } from "../node/ports.ts";
import type { IndexedBlock } from "./tail.ts";

/**
 * Parses a node block once and builds every stored projection from it. The hash is recomputed
 * from the header: a node answer whose bytes do not hash to the hash it was fetched by is
 * `malformed` (never stored), and so is one whose coinbase height is not the height asked for.
 * `history`: keep the raw bytes and their history (origin/history) for sealing node-free history.
 */
export function buildIndexedBlock(node: NodeBlock, history = false): IndexedBlock {
  const parsed = parseBlock(node.raw);
  if (!equalBytes(parsed.wireHash, wireHashOf(node.displayHash))) {
    throw new LightedgeError(
      "malformed",
      "index.build-block",
      `block ${node.height}: raw bytes do not hash to ${node.displayHash}`,
    );
  }
  // The coinbase's BIP34 height is outside a v5 txid, so nothing else binds it to the height the
  // node says this block has: check it here rather than store a block under the wrong height.
  if (parsed.height !== node.height) {
    throw new LightedgeError(
      "malformed",
      "index.build-block",
      `block ${node.height}: coinbase says height ${parsed.height}`,
    );
  }
  const projections = projectBlock(parsed, node.treeSizes);
  const kept = history ? { raw: node.raw, history: blockHistory(parsed, addressKeyOfScript) } : {};
  return {
    ...kept,
    height: node.height,
    wireHash: parsed.wireHash,
    // A copy: the header's field is a view into the raw block, and the tail would keep every
    // ~60 KB raw block alive through it until the range is sealed (most of the live heap).
    wirePrevHash: parsed.header.wirePrevHash.slice(),
    time: parsed.header.time,
    treeSizes: { ...node.treeSizes },
    messages: { full: projections.full, shielded: projections.shielded, nullifiers: projections.nullifiers },
  };
}
