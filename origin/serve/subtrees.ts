import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { LightedgeError } from "../../proto/errors.ts";
import {
  type GetSubtreeRootsArg,
  ShieldedProtocol,
  type SubtreeRoot,
  SubtreeRootSchema,
} from "../../proto/index.ts";
import type { ShieldedPool } from "../node/ports.ts";
import { servedTip } from "./blocks.ts";
import type { Serve } from "./context.ts";
import { bytesFromHex } from "./values.ts";

const POOLS: Record<number, ShieldedPool> = {
  [ShieldedProtocol.sapling]: "sapling",
  [ShieldedProtocol.orchard]: "orchard",
  [ShieldedProtocol.ironwood]: "ironwood",
};

/**
 * GetSubtreeRoots via z_getsubtreesbyindex. Byte orders follow lightwalletd: `rootHash` is the
 * node's hex decoded as is; `completingBlockHash` is the completing block's hash byte-reversed
 * from its display hex, i.e. wire order, the same order as CompactBlock.hash and BlockID.hash.
 * (ztreamer sends it unreversed; LRZ reads only the height and root.) The hash comes from the
 * served chain; a completing block the origin does not serve (below its floor) is asked of the
 * node through its tree state, which carries the block hash.
 */
export async function* getSubtreeRoots(
  s: Serve,
  arg: GetSubtreeRootsArg,
  ctx: HandlerContext,
): AsyncGenerator<SubtreeRoot> {
  const rpc = "GetSubtreeRoots";
  const pool = POOLS[arg.shieldedProtocol];
  if (pool === undefined)
    throw new LightedgeError("bad-request", rpc, `${rpc}: unknown shielded protocol ${arg.shieldedProtocol}`);
  const stored = await storedRoots(s, pool, arg);
  if (stored !== undefined) {
    for (const r of stored)
      yield create(SubtreeRootSchema, {
        rootHash: r.root,
        completingBlockHash: r.completingWireHash,
        completingBlockHeight: BigInt(r.completingHeight),
      });
    return;
  }
  const limit = arg.maxEntries === 0 ? undefined : arg.maxEntries;
  const result = await s.callNode(ctx, "z_getsubtreesbyindex", () =>
    s.node.subtrees(pool, arg.startIndex, limit),
  );
  for (const subtree of result.subtrees) {
    yield create(SubtreeRootSchema, {
      rootHash: bytesFromHex(subtree.root),
      completingBlockHash: await completingHash(s, ctx, subtree.end_height),
      completingBlockHeight: BigInt(subtree.end_height),
    });
  }
}

async function completingHash(s: Serve, ctx: HandlerContext, height: number): Promise<Uint8Array> {
  const meta = await s.chain.blockMeta(height);
  if (meta !== undefined) return meta.wireHash;
  const state = await s.callNode(ctx, "z_gettreestate", () => s.node.treeState(height));
  return new Uint8Array(Buffer.from(state.hash, "hex").reverse());
}

/** Our own computed roots (origin/treestate), up to the served tip's tree size; undefined = not stored. */
async function storedRoots(s: Serve, pool: ShieldedPool, arg: GetSubtreeRootsArg) {
  if (s.options.treeStates === undefined || pool === "ironwood") return undefined;
  const meta = await s.chain.blockMeta(servedTip(s.chain, "GetSubtreeRoots").height);
  const treeSize = meta?.treeSizes?.[pool];
  if (treeSize === undefined) return undefined;
  return s.options.treeStates.subtreeRoots({
    pool,
    startIndex: arg.startIndex,
    maxEntries: arg.maxEntries,
    treeSize,
  });
}
