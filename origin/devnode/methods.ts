import { RenderedJson, resolveBlock, txRaw, verboseBlock } from "./blocks-rpc.ts";
import { getBlockchainInfo, getInfo } from "./info-rpc.ts";
import { admitTransaction } from "./mempool.ts";
import { type NodeState, rememberTxids } from "./node-state.ts";
import { faults, RpcFault } from "./rpc-error.ts";
import { subtrees, treeState } from "./tree-rpc.ts";

/** A result, or a promise of one (tree states come from the tree worker). */
type Method = (state: NodeState, params: unknown[]) => unknown;

/** The zebrad JSON-RPC subset lightwalletd and lightedge use, with zebrad's shapes and codes. */
export const methods: Record<string, Method> = {
  getinfo: (s) => getInfo(s),
  getblockchaininfo: (s) => getBlockchainInfo(s),
  getbestblockhash: (s) => s.chain.hashAt(s.tip()),
  getblockcount: (s) => s.tip(),
  getblockhash(s, [h]) {
    const tip = s.tip();
    const height = typeof h === "number" && h < 0 ? tip + 1 + h : h; // zebrad: negative = from the tip
    if (typeof height !== "number" || !Number.isSafeInteger(height))
      throw faults.invalidParams("invalid height");
    if (height > tip || height < s.chain.base) throw faults.aboveTip();
    return s.chain.hashAt(height);
  },
  getblock(s, [id, verbosity = 1]) {
    const tip = s.tip();
    const b = s.blocks.get(s.chain, resolveBlock(s.chain, tip, id));
    rememberTxids(s, b.height, b.txids);
    if (verbosity === 0) return new RenderedJson(b.hexJson);
    if (verbosity === 1 || verbosity === 2) return verboseBlock(s.chain, tip, b, verbosity);
    throw faults.invalidParams("invalid verbosity");
  },
  z_gettreestate: (s, [id]) => treeState(s, id),
  z_getsubtreesbyindex: (s, [pool, start, limit]) => subtrees(s, pool, start, limit),
  getrawtransaction: (s, [txid, verbose = 0]) => rawTransaction(s, txid, verbose),
  sendrawtransaction: (s, [hex]) => sendRawTransaction(s, hex),
  getrawmempool: (s) => [...s.mempool.keys()],
  getaddresstxids(s, [req]) {
    const { addresses, start, end } = addressRequest(req);
    const tip = s.tip();
    const from = start ?? 1;
    const to = Math.min(end ?? tip, tip);
    if (from > to && end !== undefined)
      throw faults.invalidParams(`start Height(${from}) must be less than or equal to end Height(${to})`);
    return s.addresses.txids(addresses, from, to);
  },
  getaddressbalance: (s, [req]) => s.addresses.balance(addressRequest(req).addresses, s.tip()),
  getaddressutxos: (s, [req]) => s.addresses.utxos(addressRequest(req).addresses, s.tip()),
};

function addressRequest(req: unknown): { addresses: string[]; start?: number; end?: number } {
  const r = req as { addresses?: unknown; start?: unknown; end?: unknown } | string;
  const addresses = typeof r === "string" ? [r] : r?.addresses;
  if (
    !Array.isArray(addresses) ||
    addresses.some((a) => typeof a !== "string" || !/^t[a-zA-Z0-9]{34}$/.test(a))
  )
    throw new RpcFault(-5, "Invalid address");
  const o = typeof r === "object" ? r : {};
  return {
    addresses,
    start: typeof o.start === "number" ? o.start : undefined,
    end: typeof o.end === "number" ? o.end : undefined,
  };
}

/**
 * getrawtransaction: the mempool, else any transaction of the chain up to the tip — first by the
 * heights of recently served blocks (no scan), else by the address and transaction index (which
 * the first such request builds: address-index.ts).
 */
async function rawTransaction(s: NodeState, txid: unknown, verbose: unknown): Promise<unknown> {
  if (typeof txid !== "string" || !/^[0-9a-fA-F]{64}$/.test(txid))
    throw new RpcFault(-5, "Invalid string length");
  const id = txid.toLowerCase();
  const pooled = s.mempool.get(id);
  let hex: string;
  let height: number | undefined;
  if (pooled) hex = Buffer.from(pooled).toString("hex");
  else {
    const recent = s.txHeights.get(id);
    let found = recent === undefined ? undefined : minedTx(s, recent, id);
    if (!found) {
      const at = await s.addresses.locate(id, s.tip());
      found = at && minedTx(s, at.height, id);
    }
    if (!found) throw faults.txNotFound();
    ({ hex, height } = found);
  }
  if (verbose === 0 || verbose === false) return hex;
  const out: Record<string, unknown> = { hex, txid: id };
  if (height !== undefined) {
    out.height = height;
    out.confirmations = s.tip() - height + 1;
    out.blockhash = s.chain.hashAt(height);
  }
  return out;
}

/** Transaction `id` (display txid) in the block at `height`, if that block (still) has it. */
function minedTx(s: NodeState, height: number, id: string): { hex: string; height: number } | undefined {
  if (height > s.tip() || height < s.chain.base) return undefined;
  const b = s.blocks.get(s.chain, height);
  const i = b.txids.indexOf(id);
  if (i < 0) return undefined; // the block at that height changed (reorg)
  return { hex: Buffer.from(txRaw(b, i)!).toString("hex"), height };
}

function sendRawTransaction(s: NodeState, hex: unknown): string {
  if (typeof hex !== "string" || !/^([0-9a-fA-F]{2})+$/.test(hex))
    throw new RpcFault(-22, "TX decode failed");
  return admitTransaction(s, Uint8Array.from(Buffer.from(hex, "hex")));
}
