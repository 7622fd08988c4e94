import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { displayHex } from "../../proto/bytes.ts";
import { LightedgeError, toConnectError } from "../../proto/errors.ts";
import {
  type BlockID,
  BlockIDSchema,
  type CompactTxStreamer,
  type GetSubtreeRootsArg,
  GetSubtreeRootsArgSchema,
  ShieldedProtocol,
  type SubtreeRoot,
  SubtreeRootSchema,
  type TreeState,
  TreeStateSchema,
} from "../../proto/index.ts";
import { Lru } from "../../proto/lru.ts";
import { blockInfo, type HeadObject, lastRangeIndex } from "../../proto/range/index.ts";
import { readSubtreeRoots, type SubtreePool, type TreeStateView } from "../../proto/treestate/index.ts";
import { checkBlockHash } from "../../proto/wire/limits.ts";
import { findSealedHash } from "../blocks/find-hash.ts";
import { noteTreeStateAsked } from "../blocks/next-batch.ts";
import type { EdgeServices } from "../services.ts";
import { objectReadBytes } from "../store/read-bytes.ts";

type Impl = ServiceImpl<typeof CompactTxStreamer>;

/** Subtree roots completed above `sealedTip`, from `arg.startIndex` on (createTailRoots). */
type TailRoots = (arg: GetSubtreeRootsArg, sealedTip: number, ctx: HandlerContext) => Promise<SubtreeRoot[]>;

/** Tail tree states kept per network and isolate (a few KB each; the tail is ≤ a few hundred blocks). */
const TAIL_STATE_CACHE_ENTRIES = 64;

const POOLS: Record<number, SubtreePool> = {
  [ShieldedProtocol.sapling]: "sapling",
  [ShieldedProtocol.orchard]: "orchard",
  [ShieldedProtocol.ironwood]: "ironwood",
};

const toMessage = (v: TreeStateView): TreeState =>
  create(TreeStateSchema, { ...v, height: BigInt(v.height) });

/**
 * The stored tree state at a sealed height (one cached table lookup plus one ranged read), or
 * undefined when the height is outside the sealed chain or its range is not backfilled yet.
 */
export async function sealedTreeStateAt(
  s: EdgeServices,
  network: string,
  head: HeadObject | null,
  height: number,
): Promise<TreeState | undefined> {
  if (!head?.tip || height > head.tip.height || height < head.firstHeight) return undefined;
  const trees = s.treeStates(network);
  noteTreeStateAsked(trees, height);
  const view = await trees.at(head.rangeSize, height);
  return view ? toMessage(view) : undefined;
}

/**
 * GetTreeState, GetLatestTreeState and GetSubtreeRoots from the stored tree-state objects the
 * origin computed (all three pools; origin/treestate/README.md): a sealed height is one cached table
 * lookup plus one ranged read. A subtree chunk not stored (history before the origin's start, or
 * not written yet) sends the whole GetSubtreeRoots to the origin, which serves the same roots. Heights above the sealed
 * tip, ranges not backfilled yet and unknown hashes go to `fallback` (the origin proxy); with no
 * origin, a height above the sealed tip is OutOfRange and an unknown hash NotFound.
 */
export function storedTreeStateMethods(
  s: EdgeServices,
  network: string,
  fallback: Partial<Impl>,
  latestTip?: () => Promise<BlockID>,
): Partial<Impl> {
  const reader = s.treeStates(network);
  const tailRoots = createTailRoots(s, fallback, latestTip);
  // Tail tree states the origin gave for a (height, hash): immutable for that hash, so kept as
  // settled values (never a read in flight: proto/lru.ts) until the LRU drops them.
  const tailStates = new Lru<string, TreeState>({ maxEntries: TAIL_STATE_CACHE_ENTRIES });
  const fall = <K extends "getTreeState" | "getLatestTreeState">(k: K, miss: LightedgeError) => {
    const f = fallback[k];
    if (f === undefined) throw miss;
    return f as NonNullable<Impl[K]>;
  };
  const sealedHead = async (): Promise<HeadObject | null> => {
    const head = await s.heads.head(network);
    return head?.tip ? head : null;
  };
  const byHeight = async (
    rpc: string,
    head: HeadObject | null,
    height: number,
    req: BlockID,
    ctx: HandlerContext,
  ) => {
    if (head?.tip && height <= head.tip.height && height >= head.firstHeight) {
      const view = await reader.at(head.rangeSize, height);
      if (view) return toMessage(view);
    }
    const above = head?.tip ? height > head.tip.height : true;
    const miss = above
      ? new LightedgeError("above-tip", rpc, `${rpc}: height ${height} is above the tip`)
      : new LightedgeError("unavailable", rpc, `${rpc}: no stored tree state for ${height}`);
    return fall("getTreeState", miss)(req, ctx) as Promise<TreeState>;
  };
  return {
    async getTreeState(req, ctx) {
      const rpc = "GetTreeState";
      try {
        const head = await sealedHead();
        if (req.hash.length === 0) return await byHeight(rpc, head, Number(req.height), req, ctx);
        const hash = checkBlockHash(rpc, req.hash);
        const hit = head ? await findSealedHash(s, head, hash) : undefined;
        if (hit) return await byHeight(rpc, head, hit.height, req, ctx);
        return await fall("getTreeState", new LightedgeError("not-found", rpc, `${rpc}: unknown block hash`))(
          req,
          ctx,
        );
      } catch (err) {
        throw toConnectError(rpc, err, s.log);
      }
    },
    async getLatestTreeState(req, ctx) {
      const rpc = "GetLatestTreeState";
      try {
        // The tree state at the tip GetLatestBlock answers (the isolate's refreshed origin tip, or
        // the sealed tip without one), as lightwalletd answers GetTreeState(latest height): sealed
        // tips from storage, a tail tip asked of the origin once per tip and kept. Wallets call it
        // at every sync, so the origin sees one call per new tip per isolate, not one per wallet.
        if (latestTip !== undefined && fallback.getTreeState !== undefined) {
          const tip = await latestTip();
          const key = `${tip.height}:${displayHex(tip.hash)}`;
          const kept = tailStates.get(key);
          if (kept !== undefined) return kept;
          const head = await sealedHead();
          const state = await byHeight(
            rpc,
            head,
            Number(tip.height),
            create(BlockIDSchema, { height: tip.height }),
            ctx,
          );
          // Only an answer for this very block is kept (a reorg in between gives another hash).
          if (state.hash === displayHex(tip.hash)) tailStates.set(key, state);
          return state;
        }
        // The origin's tip is newer than the sealed one; storage answers only without an origin.
        if (fallback.getLatestTreeState) return await fallback.getLatestTreeState(req, ctx);
        const head = await sealedHead();
        if (!head?.tip) throw new LightedgeError("unavailable", rpc, `${rpc}: nothing is sealed yet`);
        const view = await reader.at(head.rangeSize, head.tip.height);
        if (!view) throw new LightedgeError("unavailable", rpc, `${rpc}: no stored tree state at the tip`);
        return toMessage(view);
      } catch (err) {
        throw toConnectError(rpc, err, s.log);
      }
    },
    getSubtreeRoots: (arg, ctx) => subtreeRoots(s, network, arg, ctx, fallback, tailRoots),
  };
}

/**
 * Roots of subtrees completed above the sealed tip, asked of the origin (which computes them as
 * its tail grows) from the first index storage lacks, once per tip per isolate: wallets ask at
 * every sync. Only when the tip GetLatestBlock answers is above the sealed one, so the edge's
 * roots reach the tip it announces, as lightwalletd's reach its node's. An origin that fails leaves
 * the stored roots alone: a prefix is a whole answer (wallets scan the rest), an error would not be.
 */
function createTailRoots(
  s: EdgeServices,
  fallback: Partial<Impl>,
  latestTip: (() => Promise<BlockID>) | undefined,
): TailRoots {
  const kept = new Lru<string, SubtreeRoot[]>({ maxEntries: TAIL_STATE_CACHE_ENTRIES });
  return async (arg, sealedTip, ctx) => {
    const ask = fallback.getSubtreeRoots;
    if (ask === undefined || latestTip === undefined) return [];
    const tip = await latestTip();
    if (Number(tip.height) <= sealedTip) return [];
    const key = `${arg.shieldedProtocol}:${arg.startIndex}:${arg.maxEntries}:${tip.height}:${displayHex(tip.hash)}`;
    const known = kept.get(key);
    if (known !== undefined) return known;
    const roots: SubtreeRoot[] = [];
    try {
      for await (const r of ask(arg, ctx) as AsyncIterable<SubtreeRoot>) roots.push(r);
    } catch (err) {
      // The caller's own deadline or cancel is still theirs to see.
      if (ctx.signal.aborted) throw err;
      s.log(err);
      return [];
    }
    kept.set(key, roots);
    return roots;
  };
}

async function* subtreeRoots(
  s: EdgeServices,
  network: string,
  arg: GetSubtreeRootsArg,
  ctx: HandlerContext,
  fallback: Partial<Impl>,
  tailRoots: TailRoots,
): AsyncGenerator<SubtreeRoot> {
  const rpc = "GetSubtreeRoots";
  let roots: Awaited<ReturnType<typeof readSubtreeRoots>>;
  let sealedTip = -1;
  try {
    const pool = POOLS[arg.shieldedProtocol];
    if (pool === undefined)
      throw new LightedgeError(
        "bad-request",
        rpc,
        `${rpc}: unknown shielded protocol ${arg.shieldedProtocol}`,
      );
    const head = await s.heads.head(network);
    if (head?.tip) {
      sealedTip = head.tip.height;
      const meta = await s.ranges(network, head.rangeSize).meta(lastRangeIndex(head));
      const treeSize = blockInfo(meta, head.tip.height).treeSizes[pool];
      roots = await readSubtreeRoots(objectReadBytes(s.reader), network, {
        pool,
        startIndex: arg.startIndex,
        maxEntries: arg.maxEntries,
        treeSize,
      });
    }
  } catch (err) {
    throw toConnectError(rpc, err, s.log);
  }
  if (roots === undefined) {
    if (fallback.getSubtreeRoots === undefined)
      throw toConnectError(
        rpc,
        new LightedgeError("unavailable", rpc, `${rpc}: subtree roots are not stored`),
      );
    yield* fallback.getSubtreeRoots(arg, ctx) as AsyncIterable<SubtreeRoot>;
    return;
  }
  // completingBlockHash in DISPLAY order, as lightwalletd sends it (frontend/service.go
  // GetSubtreeRoots: hash32.ReverseSlice of the internal-order hash); chunks store the wire order.
  for (const r of roots)
    yield create(SubtreeRootSchema, {
      rootHash: r.root,
      completingBlockHash: r.completingWireHash.slice().reverse(),
      completingBlockHeight: BigInt(r.completingHeight),
    });
  // The rest, when more were asked for than storage holds: subtrees the tail completed.
  const wanted = arg.maxEntries === 0 ? Number.POSITIVE_INFINITY : arg.maxEntries - roots.length;
  if (wanted > 0) {
    const rest = create(GetSubtreeRootsArgSchema, {
      ...arg,
      startIndex: arg.startIndex + roots.length,
      maxEntries: arg.maxEntries === 0 ? 0 : wanted,
    });
    yield* await tailRoots(rest, sealedTip, ctx);
  }
}
