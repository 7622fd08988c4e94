import { computeTxid, displayHex } from "../chain/index.ts";
import type { Faults } from "./fault-injection.ts";
import { type NodeState, rememberTxids } from "./node-state.ts";
import { blockRandom } from "./prng.ts";
import { buildTx } from "./tx-builder.ts";

/**
 * The control API (same port, under /control/, JSON bodies, no auth — a dev tool on localhost):
 *   GET  /control/state                           tip, hashed height, mempool, faults
 *   POST /control/mine     {"blocks":k}           append k blocks (the first takes the mempool)
 *   POST /control/reorg    {"depth":d}            replace the last d blocks with a new branch
 *   POST /control/mempool  {"count":n} | {"hex":[…]}  add generated or given transactions
 *   POST /control/stall    {"ms":t,"requests"?:n} delay JSON-RPC requests (n, or until cleared)
 *   POST /control/fail     {"status"?:s,"code"?:c,"message"?:m,"close"?:true,"requests"?:n}
 *   POST /control/syncing  {"behind":n}           report estimatedheight = tip + n (0 = synced)
 *   POST /control/clear                           drop stall/fail/syncing
 */
export function control(
  state: NodeState,
  faults: Faults,
  path: string,
  body: Record<string, unknown>,
): unknown {
  const n = (v: unknown, dflt: number) =>
    typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : dflt;
  switch (path) {
    case "/control/state":
      return describe(state, faults);
    case "/control/mine": {
      const pool = [...state.mempool.entries()];
      state.chain.mine(
        n(body.blocks, 1),
        pool.map(([, raw]) => raw),
      );
      state.mempool.clear();
      if (pool.length > 0)
        rememberTxids(
          state,
          state.chain.tip() - n(body.blocks, 1) + 1,
          pool.map(([t]) => t),
        );
      state.chain.hashAt(state.chain.tip()); // hash the new blocks now: the served tip moves at once
      return describe(state, faults);
    }
    case "/control/reorg":
      state.chain.reorg(n(body.depth, 1));
      state.chain.hashAt(state.chain.tip());
      return describe(state, faults);
    case "/control/mempool":
      return { added: addMempool(state, body) };
    case "/control/stall":
      faults.stall(n(body.ms, 1000), typeof body.requests === "number" ? body.requests : undefined);
      return describe(state, faults);
    case "/control/fail":
      faults.fail(
        {
          status: body.status as number | undefined,
          code: body.code as number | undefined,
          message: body.message as string | undefined,
          close: body.close === true,
        },
        typeof body.requests === "number" ? body.requests : undefined,
      );
      return describe(state, faults);
    case "/control/syncing":
      state.behind = n(body.behind, 0);
      return describe(state, faults);
    case "/control/clear":
      faults.clear();
      state.behind = 0;
      return describe(state, faults);
    default:
      return undefined;
  }
}

let mempoolCounter = 0;

function addMempool(state: NodeState, body: Record<string, unknown>): string[] {
  const raws: Uint8Array[] = Array.isArray(body.hex)
    ? body.hex.map((h) => Uint8Array.from(Buffer.from(String(h), "hex")))
    : Array.from({ length: typeof body.count === "number" ? body.count : 1 }, () => generated(state));
  const ids: string[] = [];
  for (const raw of raws) {
    const id = displayHex(computeTxid(raw));
    state.mempool.set(id, raw);
    ids.push(id);
  }
  return ids;
}

/** A v5 tx with 2 Orchard actions, unique per call (lock_time counts). */
function generated(state: NodeState): Uint8Array {
  const k = ++mempoolCounter;
  const rand = blockRandom("mempool", state.chain.tip(), k);
  return buildTx(
    {
      version: 5,
      vin: [],
      vout: [],
      saplingSpends: 0,
      saplingOutputs: 1,
      orchardActions: 2,
      ironwoodActions: 0,
      lockTime: k,
      expiryHeight: state.chain.tip() + 40,
    },
    rand,
  );
}

function describe(state: NodeState, faults: Faults) {
  const { chain } = state;
  return {
    network: chain.network,
    synthetic: chain.synthetic,
    base: chain.base,
    tip: chain.tip(),
    servedTip: state.tip(),
    hashed: chain.hashed(),
    bestBlockHash: chain.hashAt(state.tip()),
    mempool: [...state.mempool.keys()],
    behind: state.behind,
    faults: faults.describe(),
  };
}
