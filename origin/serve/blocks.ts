import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { reversed } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { encodeFrame } from "../../proto/frame.ts";
import { type BlockID, BlockIDSchema, type CompactBlock, CompactBlockSchema } from "../../proto/index.ts";
import { nullifiersOnly } from "../../proto/pools.ts";
import { checkBlockHash, heightOf } from "../../proto/wire/limits.ts";
import type { ChainView } from "../index/chain-view.ts";
import type { Serve } from "./context.ts";
import { frameMessage, storedMessage, wantsJson } from "./stored-message.ts";

/** A stored frame as the response message: passed through for binary codecs, decoded for JSON. */
export function blockMessage(frame: Uint8Array, ctx: HandlerContext): CompactBlock {
  const bytes = frameMessage(frame);
  return wantsJson(ctx.requestHeader, ctx.url)
    ? fromBinary(CompactBlockSchema, bytes)
    : storedMessage(CompactBlockSchema, bytes);
}

export function servedTip(chain: ChainView, rpc: string) {
  const tip = chain.tip();
  if (tip === undefined)
    throw new LightedgeError("unavailable", rpc, `${rpc}: the origin has not indexed a block yet`);
  return tip;
}

/**
 * While the indexer withholds its tail (a reorg reached sealed ranges, origin/index/README.md) the
 * tip it holds is on an abandoned branch: it is not advertised.
 */
export function refuseWhileHalted(chain: ChainView, rpc: string): void {
  const reason = chain.halted?.();
  if (reason !== undefined)
    throw new LightedgeError("unavailable", rpc, `${rpc}: ${reason}; only sealed history is served`);
}

/** GetLatestBlock: the served tip; `hash` is little-endian (wire order, LWD CHANGELOG 0.4.18). */
export function getLatestBlock(s: Serve): BlockID {
  refuseWhileHalted(s.chain, "GetLatestBlock");
  const tip = servedTip(s.chain, "GetLatestBlock");
  return create(BlockIDSchema, { height: BigInt(tip.height), hash: tip.wireHash });
}

/**
 * The height a BlockID names. A 32-byte hash wins over the height (as Zaino: lightwalletd
 * refuses hashes, LWD#219, which helps no one); the hash is wire order, as CompactBlock.hash, or
 * display order.
 */
export async function resolveBlockId(s: Pick<Serve, "chain">, rpc: string, id: BlockID): Promise<number> {
  if (id.hash.length === 0) {
    const height = heightOf(rpc, id.height);
    if (height > servedTip(s.chain, rpc).height) {
      throw new LightedgeError("above-tip", rpc, `${rpc}: height ${height} is above the tip`);
    }
    return height;
  }
  // Either byte order, as the edge's hash index answers (edge/blocks/find-hash.ts) and as
  // GetTreeState and GetTransaction take a block hash here: clients differ in which they send.
  const hash = checkBlockHash(rpc, id.hash);
  const height = (await s.chain.heightOfHash(hash)) ?? (await s.chain.heightOfHash(reversed(hash)));
  if (height === undefined)
    throw new LightedgeError("not-found", rpc, `${rpc}: block hash not on the served chain`);
  return height;
}

export type BlockRpc = "GetBlock" | "GetBlockNullifiers";

/**
 * The frame GetBlock or GetBlockNullifiers answers with. Shared by the connect-node handler and
 * the fast path. GetBlock is the stored full projection (every tx, transparent included).
 * GetBlockNullifiers is that same block with every tx kept, pruned to nullifiers — lightwalletd
 * (frontend/service.go GetBlockNullifiers) strips each tx of GetBlock's block in place and drops
 * none; the stored "nullifiers" projection is GetBlockRangeNullifiers' (shielded txs only), so it
 * is derived from "full" here (one decode + encode, a unary call).
 */
export async function blockFrame(
  s: Pick<Serve, "chain">,
  rpc: BlockRpc,
  id: BlockID,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const height = await resolveBlockId(s, rpc, id);
  for await (const block of s.chain.blocks("full", height, height, { signal })) {
    if (rpc === "GetBlock") return block.frame;
    const pruned = nullifiersOnly(fromBinary(CompactBlockSchema, frameMessage(block.frame)));
    return encodeFrame(toBinary(CompactBlockSchema, pruned));
  }
  throw new LightedgeError("not-found", rpc, `${rpc}: block ${height} is not served`);
}

/** GetBlock and GetBlockNullifiers through connect-node (JSON codecs; binary calls take fast/). */
export async function getBlock(
  s: Serve,
  rpc: BlockRpc,
  id: BlockID,
  ctx: HandlerContext,
): Promise<CompactBlock> {
  return blockMessage(await blockFrame(s, rpc, id, ctx.signal), ctx);
}
