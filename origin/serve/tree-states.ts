import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { reversed, toHex } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { type BlockID, type TreeState, TreeStateSchema } from "../../proto/index.ts";
import { CHAIN_NAMES } from "../../proto/networks.ts";
import { checkBlockHash, heightOf } from "../../proto/wire/limits.ts";
import { finalStateOf } from "../treestate/node-final-state.ts";
import { servedTip } from "./blocks.ts";
import type { Serve } from "./context.ts";
import { createTtlCache } from "./ttl-cache.ts";

/** Depth below the tip past which a height's tree state cannot change (the seal depth, 100). */
const FINAL_DEPTH = 100;

/**
 * GetTreeState / GetLatestTreeState. Answers are cached: final heights (≥ 100 deep) and hashes
 * for long, tail heights for the cache TTL (a reorg can change them). A pool the node has no
 * tree for is the empty string, which LRZ clients read as an empty tree.
 */
export function createTreeStates(s: Serve) {
  const final = createTtlCache<string, TreeState>({ ttlMs: 3_600_000, maxEntries: 4096 });
  const recent = createTtlCache<string, TreeState>({ ttlMs: s.ttlMs, maxEntries: 512 });

  const build = async (ctx: HandlerContext, key: number | string): Promise<TreeState> => {
    // The origin's own tree states (origin/treestate: tail, then storage; Unavailable for a height
    // it covers but has not hashed yet); the node only for heights it does not compute.
    const stored = typeof key === "number" ? await s.options.treeStates?.treeState(key) : undefined;
    if (stored) return create(TreeStateSchema, { ...stored, height: BigInt(stored.height) });
    const load = (k: number | string) =>
      s.callNode(ctx, "z_gettreestate", (signal) => s.node.treeState(k, signal));
    const state = await load(key);
    return create(TreeStateSchema, {
      network: CHAIN_NAMES[s.options.network],
      height: BigInt(state.height),
      hash: state.hash,
      time: state.time,
      saplingTree: await finalStateOf(load, state, "sapling"),
      orchardTree: await finalStateOf(load, state, "orchard"),
      ironwoodTree: await finalStateOf(load, state, "ironwood"),
    });
  };

  const byKey = async (rpc: string, ctx: HandlerContext, key: number | string): Promise<TreeState> => {
    const tip = servedTip(s.chain, rpc).height;
    const cache = typeof key === "string" || key <= tip - FINAL_DEPTH ? final : recent;
    try {
      return await cache.get(String(key), () => build(ctx, key));
    } catch (err) {
      // lightwalletd answers every z_gettreestate failure as InvalidArgument; keep above-tip
      // (OutOfRange) and unavailability, which tell the wallet to retry.
      // A hash the node does not know comes back as its −8 "Block not found" (above-tip); for a
      // hash that means no such block: NotFound, as the edge answers an unknown hash.
      if (typeof key === "string" && err instanceof LightedgeError && err.kind === "above-tip")
        throw new LightedgeError("not-found", rpc, `${rpc}: no block has hash ${key.slice(0, 16)}…`, {
          cause: err,
        });
      if (err instanceof LightedgeError && (err.kind === "above-tip" || err.kind === "unavailable"))
        throw err;
      if (err instanceof LightedgeError && err.kind === "not-found") throw err;
      throw new LightedgeError("bad-request", rpc, `${rpc}: no tree state for ${key}`, { cause: err });
    }
  };

  return {
    /**
     * By height, or by a 32-byte hash in either byte order: lightwalletd hex-encodes the bytes
     * unreversed (display order) while BlockID.hash is wire order elsewhere; the served chain
     * knows which one it is, and an unknown hash goes to the node as lightwalletd sends it.
     */
    async getTreeState(id: BlockID, ctx: HandlerContext): Promise<TreeState> {
      const rpc = "GetTreeState";
      if (id.hash.length === 0) {
        const height = heightOf(rpc, id.height);
        if (height > servedTip(s.chain, rpc).height) {
          throw new LightedgeError("above-tip", rpc, `${rpc}: height ${height} is above the tip`);
        }
        return byKey(rpc, ctx, height);
      }
      const wire = await s.chain.heightOfHash(checkBlockHash(rpc, id.hash));
      if (wire !== undefined) return byKey(rpc, ctx, wire);
      const asDisplay = toHex(id.hash);
      const asReversed = await s.chain.heightOfHash(reversed(id.hash));
      return byKey(rpc, ctx, asReversed ?? asDisplay);
    },
    async getLatestTreeState(ctx: HandlerContext): Promise<TreeState> {
      const tip = servedTip(s.chain, "GetLatestTreeState");
      return byKey("GetLatestTreeState", ctx, tip.height);
    },
  };
}
