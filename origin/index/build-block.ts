import { equalBytes, wireHashOf } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { addressKeyOfScript } from "../../proto/history/index.ts";
import {
  type ParsedBlock,
  parseBlock,
  projectBlock,
  type TreeSizes,
  treeSizesBefore,
} from "../chain/index.ts";
import { blockHistory } from "../history/block-history.ts";
import type { NodeBlock, RawBlockRun } from "../node/ports.ts";
import type { IndexedBlock } from "./tail.ts";

const WHERE = "index.build-block";

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
      WHERE,
      `block ${node.height}: raw bytes do not hash to ${node.displayHash}`,
    );
  }
  checkHeight(parsed, node.height);
  return indexedBlock(node.raw, parsed, node.treeSizes, history);
}

/**
 * Builds a run of raw blocks fetched by height (`ChainSource.rawBlocks`). The node vouched for
 * the last block only (its hash and tree sizes, `getblock 1`): the run must be one chain ending in
 * that block, and every other block's tree sizes are the next block's minus what that block adds
 * (`treeSizesBefore`). A run that is not one chain, or whose last block is not the one the node
 * described, is the chain moving while it was fetched: `unavailable`, fetched again. Sizes that
 * would go below zero mean the count disagrees with the node: `malformed`. `sizesBefore` (the
 * first block's parent's sizes) lets the caller check the join with what it already holds.
 */
export function buildRawRun(
  run: RawBlockRun,
  history = false,
): { blocks: IndexedBlock[]; sizesBefore: TreeSizes } {
  const to = run.from + run.raws.length - 1;
  const parsed: ParsedBlock[] = [];
  for (const raw of run.raws) {
    const block = parseBlock(raw);
    const height = run.from + parsed.length;
    checkHeight(block, height);
    const previous = parsed[parsed.length - 1];
    if (previous && !equalBytes(block.header.wirePrevHash, previous.wireHash))
      throw moved(run.from, to, `block ${height} does not extend block ${height - 1}`);
    parsed.push(block);
  }
  const last = parsed[parsed.length - 1]!;
  if (!equalBytes(last.wireHash, wireHashOf(run.last.displayHash)))
    throw moved(run.from, to, `block ${to} is not the ${run.last.displayHash} the node described`);
  const sizes: TreeSizes[] = new Array(parsed.length);
  let after = run.last.treeSizes;
  for (let i = parsed.length - 1; i >= 0; i--) {
    sizes[i] = after;
    after = treeSizesBefore(after, parsed[i]!.txs);
    if (after.sapling < 0 || after.orchard < 0 || after.ironwood < 0)
      throw new LightedgeError(
        "malformed",
        WHERE,
        `block ${run.from + i}: its note commitments outnumber the tree sizes the node gave for block ${to}`,
      );
  }
  return {
    blocks: parsed.map((p, i) => indexedBlock(run.raws[i]!, p, sizes[i]!, history)),
    sizesBefore: after,
  };
}

/** The coinbase's BIP34 height is outside a v5 txid, so nothing else binds it to the height asked for. */
function checkHeight(parsed: ParsedBlock, height: number): void {
  if (parsed.height !== height)
    throw new LightedgeError("malformed", WHERE, `block ${height}: coinbase says height ${parsed.height}`);
}

function moved(from: number, to: number, why: string): LightedgeError {
  return new LightedgeError(
    "unavailable",
    WHERE,
    `blocks ${from}..${to}: ${why} (the node's chain moved while they were fetched); fetching again`,
  );
}

function indexedBlock(
  raw: Uint8Array,
  parsed: ParsedBlock,
  treeSizes: TreeSizes,
  history: boolean,
): IndexedBlock {
  const projections = projectBlock(parsed, treeSizes);
  const kept = history ? { raw, history: blockHistory(parsed, addressKeyOfScript) } : {};
  return {
    ...kept,
    height: parsed.height,
    wireHash: parsed.wireHash,
    // A copy: the header's field is a view into the raw block, and the tail would keep every
    // ~60 KB raw block alive through it until the range is sealed (most of the live heap).
    wirePrevHash: parsed.header.wirePrevHash.slice(),
    time: parsed.header.time,
    treeSizes: { ...treeSizes },
    messages: { full: projections.full, shielded: projections.shielded, nullifiers: projections.nullifiers },
  };
}
