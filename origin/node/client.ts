import { addressMethods } from "./address.ts";
import { fetchBlock, fetchBlocks } from "./blocks.ts";
import { NodeRpcError } from "./errors.ts";
import { checkNetwork, parseNodeInfo, syncingError } from "./info.ts";
import { arr, hash, hexBytes, int, obj, optInt, str } from "./parse.ts";
import type {
  NodeClient,
  NodeClientConfig,
  NodeInfo,
  SendResult,
  ShieldedPool,
  Subtrees,
  TreeState,
} from "./ports.ts";
import { createRpcCaller, type RpcCaller } from "./rpc.ts";
import { createHttpTransport } from "./transport.ts";

/** Defaults: generous timeout for big blocks, a bounded pipeline, a few quick retries. */
const defaults = {
  timeoutMs: 30_000,
  maxInFlight: 16,
  retries: 3,
  backoffMs: 100,
  batch: true,
  batchSize: 100,
};

/** A JSON-RPC client for zebrad/zcashd implementing every role of ./ports.ts. */
export function createNodeClient(config: NodeClientConfig): NodeClient {
  const c = Object.freeze({ ...defaults, ...config });
  const transport = createHttpTransport(c);
  const rpc = createRpcCaller(transport, c);

  async function info(signal?: AbortSignal): Promise<NodeInfo> {
    // The genesis hash is asked for on every call (not cached): a node swapped for one on another
    // chain behind the same URL must be noticed. A separate call, so a node without height 0
    // (the dev node replaying a corpus run) still answers the batch.
    const [[gi, ci], genesis] = await Promise.all([
      rpc.batch<unknown>(
        [
          { method: "getinfo", params: [] },
          { method: "getblockchaininfo", params: [] },
        ],
        signal,
      ),
      genesisHash(signal),
    ]);
    const parsed = parseNodeInfo(gi, ci, genesis);
    checkNetwork(parsed, c.network);
    return parsed;
  }

  async function genesisHash(signal?: AbortSignal): Promise<string | undefined> {
    try {
      return hash("getblockhash", await aboveTipOnBadHeight(rpc, "getblockhash", [0], signal), "result");
    } catch (err) {
      if (err instanceof NodeRpcError && err.kind === "above-tip") return undefined;
      throw err;
    }
  }

  return {
    ...addressMethods(rpc),
    info,
    async checkReady(options) {
      const i = await info();
      if (i.initialSync && !options?.allowSyncing) throw syncingError(i);
      return i;
    },
    async bestBlock() {
      // One call so height and hash describe the same tip.
      const ci = obj("getblockchaininfo", await rpc.call("getblockchaininfo", []), "result");
      return {
        height: int("getblockchaininfo", ci.blocks, "blocks"),
        displayHash: hash("getblockchaininfo", ci.bestblockhash, "bestblockhash"),
      };
    },
    async blockHash(height) {
      return hash("getblockhash", await aboveTipOnBadHeight(rpc, "getblockhash", [height]), "result");
    },
    block: (displayHash) => fetchBlock(rpc, displayHash),
    blocks: (from, to) => fetchBlocks(rpc, from, to, c.batchSize),
    async rawTransaction(displayTxid, signal) {
      const r = obj(
        "getrawtransaction",
        await rpc.call("getrawtransaction", [displayTxid, 1], signal),
        "result",
      );
      const height =
        r.height === undefined || r.height === null
          ? undefined
          : int("getrawtransaction", r.height, "height");
      return { raw: hexBytes("getrawtransaction", r.hex, "hex"), height };
    },
    sendRawTransaction: (raw, signal) => send(rpc, raw, signal),
    async rawMempool(signal) {
      return arr("getrawmempool", await rpc.call("getrawmempool", [], signal), "result").map((t) =>
        hash("getrawmempool", t, "txid"),
      );
    },
    async treeState(heightOrHash, signal) {
      return parseTreeState(await rpc.call("z_gettreestate", [String(heightOrHash)], signal));
    },
    async subtrees(pool, start, limit, signal) {
      const params: unknown[] = limit === undefined ? [pool, start] : [pool, start, limit];
      return parseSubtrees(pool, await rpc.call("z_getsubtreesbyindex", params, signal));
    },
    close: () => transport.close(),
  };
}

/**
 * getblockhash past the tip: zebrad 7.0.0 answers −1 "Provided index is greater than the current
 * tip" (older zebrad and the dev node −32602, same message), zcashd −8 (mapped to above-tip).
 */
async function aboveTipOnBadHeight(
  rpc: RpcCaller,
  method: string,
  params: unknown[],
  signal?: AbortSignal,
): Promise<unknown> {
  try {
    return await rpc.call(method, params, signal);
  } catch (err) {
    if (
      err instanceof NodeRpcError &&
      (err.code === -32602 || err.code === -1) &&
      /tip|range/i.test(err.message)
    )
      throw new NodeRpcError("above-tip", err.where, err.message, { failure: "node-error", code: err.code });
    throw err;
  }
}

async function send(rpc: RpcCaller, raw: Uint8Array, signal?: AbortSignal): Promise<SendResult> {
  try {
    const txid = await rpc.call("sendrawtransaction", [Buffer.from(raw).toString("hex")], signal);
    return { txid: hash("sendrawtransaction", txid, "result") };
  } catch (err) {
    // A node verdict on the tx is an answer (SendResponse.errorCode/errorMessage), not a failure.
    if (err instanceof NodeRpcError && err.failure === "node-error")
      return { rejected: { code: err.code ?? 0, message: err.message } };
    throw err;
  }
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
