import { displayHex, equalBytes, wireHashOf } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { addressKeyOfScript } from "../../proto/history/index.ts";
import { parseBlock } from "../chain/index.ts";
import type { IndexedBlock } from "../index/tail.ts";
import type { ChainSource } from "../node/ports.ts";
import type { FileBody } from "../store/index.ts";
import { blockHistory } from "./block-history.ts";
import { type HistoryBlock, type HistoryRange, rangeOfBlocks } from "./history-writer.ts";

const WHERE = "history.blocks";

/**
 * A raw block as history seals it, checked to be the block expected at `height` with `wireHash`
 * (a node answer or a stored object that hashes otherwise is malformed or corrupt, never sealed).
 */
export function historyBlockOf(
  raw: Uint8Array,
  height: number,
  wireHash: Uint8Array,
  kind: "malformed" | "corrupt" = "malformed",
): HistoryBlock {
  const parsed = parseBlock(raw);
  if (!equalBytes(parsed.wireHash, wireHash) || parsed.height !== height)
    throw new LightedgeError(kind, WHERE, `block ${height}: raw bytes are not block ${displayHex(wireHash)}`);
  return { raw, history: blockHistory(parsed, addressKeyOfScript), wireHash };
}

/**
 * A range as history seals it: its raw-block object from the spool when that holds the whole
 * range (raw-spool.ts; its blocks were fetched in this process, with their history), else from the
 * blocks' bytes in memory, fetched again for the blocks that lack them.
 */
export async function historyRangeOf(
  chain: Pick<ChainSource, "block">,
  blocks: readonly IndexedBlock[],
  spooled: FileBody | undefined,
): Promise<HistoryRange> {
  if (spooled !== undefined && blocks.every((b) => b.history !== undefined))
    return { blocks: blocks.map((b) => ({ history: b.history!, wireHash: b.wireHash })), raw: spooled };
  return rangeOfBlocks(await completeHistoryBlocks(chain, blocks));
}

/**
 * The blocks of a range with their raw bytes and history: as fetched, or — blocks restored from
 * the tail log after a restart keep neither — fetched again from the node by hash.
 */
export async function completeHistoryBlocks(
  chain: Pick<ChainSource, "block">,
  blocks: readonly IndexedBlock[],
): Promise<HistoryBlock[]> {
  return Promise.all(
    blocks.map(async (b) => {
      if (b.raw !== undefined && b.history !== undefined)
        return { raw: b.raw, history: b.history, wireHash: b.wireHash };
      const node = await chain.block(displayHex(b.wireHash));
      if (!equalBytes(wireHashOf(node.displayHash), b.wireHash))
        throw new LightedgeError("malformed", WHERE, `block ${b.height}: the node answered another block`);
      return historyBlockOf(node.raw, b.height, b.wireHash);
    }),
  );
}
