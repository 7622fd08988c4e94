import type { HandlerContext } from "@connectrpc/connect";
import { wireFromDisplayHex } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import type { Serve } from "./context.ts";
import { createTtlCache } from "./ttl-cache.ts";

export interface MempoolTx {
  displayTxid: string;
  wireTxid: Uint8Array;
  raw: Uint8Array;
}

/**
 * The node's mempool (getrawmempool + getrawtransaction per new txid), cached for the TTL
 * (lightwalletd: 2 s) so every wallet polling shares one node round. Raw transactions are kept
 * across rounds while they stay in the mempool, so each is fetched once.
 */
export interface Mempool {
  snapshot(ctx: HandlerContext): Promise<readonly MempoolTx[]>;
  /** Forget the cached round (after a SendTransaction, so the sender sees its tx). */
  invalidate(): void;
}

export function createMempool(s: Serve): Mempool {
  const cache = createTtlCache<"mempool", readonly MempoolTx[]>({ ttlMs: s.ttlMs, maxEntries: 1 });
  let known = new Map<string, MempoolTx>();

  const load = async (ctx: HandlerContext): Promise<readonly MempoolTx[]> => {
    const txids = await s.callNode(ctx, "getrawmempool", (signal) => s.node.rawMempool(signal));
    const next = new Map<string, MempoolTx>();
    const fetched = await Promise.all(txids.map((txid) => known.get(txid) ?? fetchTx(s, ctx, txid)));
    for (const tx of fetched) if (tx !== undefined) next.set(tx.displayTxid, tx);
    known = next;
    return [...next.values()];
  };

  return {
    snapshot: (ctx) => cache.get("mempool", () => load(ctx)),
    invalidate: () => cache.clear(),
  };
}

async function fetchTx(s: Serve, ctx: HandlerContext, displayTxid: string): Promise<MempoolTx | undefined> {
  try {
    const result = await s.callNode(ctx, "getrawtransaction", (signal) =>
      s.node.rawTransaction(displayTxid, signal),
    );
    return { displayTxid, wireTxid: wireFromDisplayHex(displayTxid), raw: result.raw };
  } catch (err) {
    // Mined or evicted between getrawmempool and getrawtransaction: simply no longer in the mempool.
    if (err instanceof LightedgeError && err.kind === "not-found") return undefined;
    throw err;
  }
}
