import { displayHex } from "../../proto/bytes.ts";
import { computeTxid } from "../chain/index.ts";
import type { Faults } from "./fault-injection.ts";
import { admitTransaction } from "./mempool.ts";
import { type NodeState, rememberTxids } from "./node-state.ts";
import { blockRandom } from "./prng.ts";
import { RpcFault } from "./rpc-error.ts";
import { buildTx } from "./tx-builder.ts";

/**
 * The control API (same port, under /control/, JSON bodies, no auth — a dev tool on localhost):
 *   GET  /control/state                           tip, hashed height, mempool, JSON-RPC calls per method, faults
 *   POST /control/mine     {"blocks":k,"perBlock"?:n}  append k blocks; the first takes the mempool,
 *                                                 or n mempool txs go into each (more blocks if needed)
 *   POST /control/reorg    {"depth":d}            replace the last d blocks with a new branch
 *   POST /control/mempool  {"count":n} | {"hex":[…]}  add generated or given transactions (given ones
 *                                                 must parse and suit the next block's era: mempool.ts)
 *   POST /control/stall    {"ms":t,"requests"?:n} delay JSON-RPC requests (n, or until cleared)
 *   POST /control/fail     {"status"?:s,"code"?:c,"message"?:m,"close"?:true,"flood"?:"chunked"|"declared","requests"?:n}
 *   POST /control/syncing  {"behind":n}           report estimatedheight = tip + n (0 = synced)
 *   POST /control/clear                           drop stall/fail/syncing
 */
export function control(
  state: NodeState,
  faults: Faults,
  path: string,
  body: Record<string, unknown>,
): unknown {
  const n = (key: keyof typeof LIMITS, dflt: number) => boundedInt(body, key, dflt);
  switch (path) {
    case "/control/state":
      return describe(state, faults);
    case "/control/mine": {
      const pool = [...state.mempool.entries()];
      const first = state.chain.tip() + 1;
      const per = n("perBlock", 0) || Math.max(1, pool.length);
      state.chain.mine(
        n("blocks", 1),
        pool.map(([, raw]) => raw),
        per,
      );
      state.mempool.clear();
      for (let i = 0; i * per < pool.length; i++)
        rememberTxids(
          state,
          first + i,
          pool.slice(i * per, (i + 1) * per).map(([t]) => t),
        );
      state.chain.hashAt(state.chain.tip()); // hash the new blocks now: the served tip moves at once
      return describe(state, faults);
    }
    case "/control/reorg":
      state.chain.reorg(n("depth", 1));
      state.chain.hashAt(state.chain.tip());
      return describe(state, faults);
    case "/control/mempool":
      return { added: addMempool(state, body) };
    case "/control/stall":
      faults.stall(n("ms", 1000), optionalInt(body, "requests"));
      return describe(state, faults);
    case "/control/fail":
      faults.fail(
        {
          status: optionalInt(body, "status"),
          code: optionalInt(body, "code"),
          message: optionalText(body, "message"),
          close: body.close === true,
          flood: body.flood === "chunked" || body.flood === "declared" ? body.flood : undefined,
        },
        optionalInt(body, "requests"),
      );
      return describe(state, faults);
    case "/control/syncing":
      state.behind = n("behind", 0);
      return describe(state, faults);
    case "/control/clear":
      faults.clear();
      state.behind = 0;
      return describe(state, faults);
    default:
      return undefined;
  }
}

/**
 * Bounds on control inputs. The dev node is one event loop: mining 100,000 blocks in one call held
 * it for many seconds (every JSON-RPC client then timed out), and an HTTP status outside 100–599
 * made Node throw while answering the next JSON-RPC call. A value out of bounds is a 400, never a
 * clamp, so a test that asks for too much learns it at once.
 */
const LIMITS = {
  blocks: [0, 10_000],
  perBlock: [0, 10_000],
  depth: [0, 10_000],
  count: [0, 1_000],
  ms: [0, 600_000],
  behind: [0, 100_000_000],
  requests: [0, 1_000_000_000],
  status: [100, 599],
  code: [-(2 ** 31), 2 ** 31 - 1],
} as const;

/** Most transactions one `/control/mempool {"hex":[…]}` call admits. */
const MAX_HEX_TXS = 1_000;

function boundedInt(body: Record<string, unknown>, key: keyof typeof LIMITS, dflt: number): number {
  return optionalInt(body, key) ?? dflt;
}

function optionalInt(body: Record<string, unknown>, key: keyof typeof LIMITS): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  const [min, max] = LIMITS[key];
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max)
    throw new RpcFault(-8, `${key} must be an integer from ${min} to ${max}`);
  return v;
}

function optionalText(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string" || v.length > 1_000)
    throw new RpcFault(-8, `${key} must be a string of ≤ 1000 characters`);
  return v;
}

let mempoolCounter = 0;

function addMempool(state: NodeState, body: Record<string, unknown>): string[] {
  if (body.hex !== undefined && !Array.isArray(body.hex))
    throw new RpcFault(-8, "hex must be an array of raw transactions in hex");
  if (Array.isArray(body.hex)) {
    if (body.hex.length > MAX_HEX_TXS)
      throw new RpcFault(-8, `hex: at most ${MAX_HEX_TXS} transactions per call`);
    const hexes = body.hex.map(String);
    const bad = hexes.findIndex((h) => !/^([0-9a-fA-F]{2})+$/.test(h));
    if (bad >= 0) throw new RpcFault(-22, `hex[${bad}] is not hex`);
    return hexes.map((h) => admitTransaction(state, Uint8Array.from(Buffer.from(h, "hex"))));
  }
  const ids: string[] = [];
  const count = boundedInt(body, "count", 1);
  for (let i = 0; i < count; i++) {
    const raw = generated(state);
    const id = displayHex(computeTxid(raw));
    state.mempool.set(id, raw);
    ids.push(id);
  }
  return ids;
}

/**
 * A transaction unique per call (lock_time counts) of the next block's era: v5 with one Sapling
 * output and 2 Orchard actions from NU5, else v4 with one Sapling spend and 2 outputs.
 */
function generated(state: NodeState): Uint8Array {
  const k = ++mempoolCounter;
  const next = state.chain.tip() + 1;
  const era = state.chain.eraAt(next);
  const rand = blockRandom("mempool", state.chain.tip(), k);
  return buildTx(
    {
      version: era.orchard ? 5 : 4,
      vin: [],
      vout: [],
      saplingSpends: era.orchard ? 0 : 1,
      saplingOutputs: era.orchard ? 1 : 2,
      orchardActions: era.orchard ? 2 : 0,
      ironwoodActions: 0,
      lockTime: k,
      expiryHeight: next + 40,
      branchId: era.branchId,
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
    calls: Object.fromEntries(state.calls),
    faults: faults.describe(),
  };
}
