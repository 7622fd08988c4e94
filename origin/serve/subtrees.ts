import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { fromHex, reversed } from "../../proto/bytes.ts";
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

const POOLS: Record<number, ShieldedPool> = {
  [ShieldedProtocol.sapling]: "sapling",
  [ShieldedProtocol.orchard]: "orchard",
  [ShieldedProtocol.ironwood]: "ironwood",
};

/**
 * GetSubtreeRoots. Byte orders follow lightwalletd (frontend/service.go GetSubtreeRoots):
 * `rootHash` is the node's hex decoded as is (the field element little-endian);
 * `completingBlockHash` is `hash32.ReverseSlice(block.Hash)` of the internal-order hash, i.e.
 * DISPLAY order (the RPC hex's bytes), unlike CompactBlock.hash and BlockID.hash. The stored
 * chunks keep the wire hash (proto/treestate/subtree-roots.ts): it is reversed here.
 *
 * Sources: the roots the origin computed (origin/treestate, all three pools, stored chunks up to
 * the last stored tree state); the node's z_getsubtreesbyindex for subtrees completed before the
 * origin's start, which it never hashed (no stored chunk), and for those completed above the last
 * stored tree state, up to the served tip. Without a producer, all from the node.
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
  const plan = await s.options.treeStates?.subtreeRoots({
    pool,
    startIndex: arg.startIndex,
    maxEntries: arg.maxEntries,
  });
  if (plan === undefined) {
    yield* fromNode(s, ctx, pool, arg.startIndex, arg.maxEntries === 0 ? undefined : arg.maxEntries);
    return;
  }
  // The stream is contiguous from startIndex: a wallet appends what it gets after the roots it has
  // (shardtree refuses "subtree roots with indices 17..18 which is discontinuous with existing
  // subtree range 0..11"), so when the node lists fewer older roots than asked (a node serving
  // from a later height, a corpus dev node), the stream ends there, before our own later ones.
  let next = arg.startIndex;
  for (const part of plan) {
    if (part.roots === undefined) {
      const sent = yield* fromNode(s, ctx, pool, part.from, part.to - part.from);
      if (sent < part.to - part.from) return;
    } else {
      for (const r of part.roots)
        yield create(SubtreeRootSchema, {
          rootHash: r.root,
          completingBlockHash: r.completingWireHash.slice().reverse(),
          completingBlockHeight: BigInt(r.completingHeight),
        });
    }
    next = part.to;
  }
  // Subtrees completed above the last stored tree state (the tail): the node's, as lightwalletd
  // answers them all (frontend/service.go GetSubtreeRoots asks z_getsubtreesbyindex), up to the
  // served tip, so the roots reach the tip GetLatestBlock announces. A node that fails here leaves
  // the stored roots alone: a prefix is a whole answer (wallets scan the rest), an error is not.
  const wanted = arg.maxEntries === 0 ? undefined : arg.maxEntries - (next - arg.startIndex);
  if (wanted !== undefined && wanted <= 0) return;
  const tip = servedTip(s.chain, rpc).height;
  try {
    yield* fromNode(s, ctx, pool, next, wanted, tip);
  } catch (err) {
    // The caller's own deadline or cancel is still theirs to see.
    if (ctx.signal.aborted) throw err;
    s.options.log?.(rpc, err);
  }
}

/** The node's roots from `start` (at most `limit`; none above `maxHeight`); how many were sent. */
async function* fromNode(
  s: Serve,
  ctx: HandlerContext,
  pool: ShieldedPool,
  start: number,
  limit: number | undefined,
  maxHeight = Number.POSITIVE_INFINITY,
): AsyncGenerator<SubtreeRoot, number> {
  // z_getsubtreesbyindex reads a limit of 0 as none: an empty run asks nothing.
  if (limit === 0) return 0;
  const result = await s.callNode(ctx, "z_getsubtreesbyindex", (signal) =>
    s.node.subtrees(pool, start, limit, signal),
  );
  let sent = 0;
  for (const subtree of result.subtrees) {
    if (subtree.end_height > maxHeight) break;
    yield create(SubtreeRootSchema, {
      rootHash: fromHex(subtree.root),
      completingBlockHash: await completingDisplayHash(s, ctx, subtree.end_height),
      completingBlockHeight: BigInt(subtree.end_height),
    });
    sent++;
  }
  return sent;
}

/**
 * The completing block's hash in display order: from the served chain, else the node's tree state.
 * A node that no longer has that block (a pruned or corpus node that starts above it) leaves the
 * hash empty rather than failing the whole stream: wallets read only the root and the height
 * (zcash_client_backend `sync::update_subtree_roots`), and an absent hash claims nothing false.
 */
async function completingDisplayHash(s: Serve, ctx: HandlerContext, height: number): Promise<Uint8Array> {
  const meta = await s.chain.blockMeta(height);
  if (meta !== undefined) return reversed(meta.wireHash);
  try {
    const state = await s.callNode(ctx, "z_gettreestate", (signal) => s.node.treeState(height, signal));
    return fromHex(state.hash, "GetSubtreeRoots");
  } catch (err) {
    if (err instanceof LightedgeError && (err.kind === "above-tip" || err.kind === "not-found"))
      return new Uint8Array();
    throw err;
  }
}
