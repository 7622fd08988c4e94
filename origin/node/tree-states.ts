import { arr, hash, int, obj, optInt, str } from "./parse.ts";
import type { ShieldedPool, Subtrees, TreeState, TreeStateSource } from "./ports.ts";
import type { RpcCaller } from "./rpc.ts";

/** The tree-state role: `z_gettreestate` and `z_getsubtreesbyindex` in zebrad's shapes. */
export function treeStateMethods(rpc: RpcCaller): TreeStateSource {
  return {
    async treeState(heightOrHash, signal) {
      return parseTreeState(await rpc.call("z_gettreestate", [String(heightOrHash)], signal));
    },
    async subtrees(pool, start, limit, signal) {
      const params: unknown[] = limit === undefined ? [pool, start] : [pool, start, limit];
      return parseSubtrees(pool, await rpc.call("z_getsubtreesbyindex", params, signal));
    },
  };
}

function parseTreeState(value: unknown): TreeState {
  const m = "z_gettreestate";
  const o = obj(m, value, "result");
  const pool = (name: string) => {
    const p = obj(m, o[name] ?? { commitments: {} }, name);
    const commitments = obj(m, p.commitments ?? {}, `${name}.commitments`);
    const out: TreeState["sapling"] = { commitments: {} };
    if (commitments.finalRoot !== undefined)
      out.commitments.finalRoot = str(m, commitments.finalRoot, "finalRoot");
    if (commitments.finalState !== undefined)
      out.commitments.finalState = str(m, commitments.finalState, "finalState");
    if (p.skipHash !== undefined) out.skipHash = str(m, p.skipHash, "skipHash");
    return out;
  };
  const state: TreeState = {
    hash: hash(m, o.hash, "hash"),
    height: int(m, o.height, "height"),
    time: optInt(m, o.time, "time", 0),
    sapling: pool("sapling"),
    orchard: pool("orchard"),
  };
  if (o.ironwood !== undefined) state.ironwood = pool("ironwood");
  return state;
}

function parseSubtrees(pool: ShieldedPool, value: unknown): Subtrees {
  const m = "z_getsubtreesbyindex";
  const o = obj(m, value, "result");
  return {
    pool,
    start_index: int(m, o.start_index, "start_index"),
    subtrees: arr(m, o.subtrees, "subtrees").map((s) => {
      const e = obj(m, s, "subtree");
      return { root: str(m, e.root, "root"), end_height: int(m, e.end_height, "end_height") };
    }),
  };
}
