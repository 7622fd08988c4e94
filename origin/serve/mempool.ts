import { create } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { LightedgeError } from "../../proto/errors.ts";
import {
  type CompactTx,
  type GetMempoolTxRequest,
  type RawTransaction,
  RawTransactionSchema,
} from "../../proto/index.ts";
import { filterCompactTx, type PoolSet, poolSetFromRequest } from "../../proto/pools.ts";
import { checkExcludeSuffixes } from "../../proto/wire/limits.ts";
import type { Serve } from "./context.ts";
import { excludedIndices } from "./mempool-filter.ts";
import type { Mempool } from "./mempool-snapshot.ts";

/** How often GetMempoolStream looks for new transactions (lightwalletd common/mempool.go: 2 s). */
export const MEMPOOL_POLL_MS = 2000;

/**
 * GetMempoolTx: every mempool transaction as a CompactTx, minus the excluded ones, keeping only
 * the requested pools (empty = Sapling + Orchard + Ironwood, as ranges); a tx left with no
 * components is dropped. Sent in ascending order of the display (big-endian hex) txid, as
 * lightwalletd sends them (frontend/service.go MempoolFilter sorts getrawmempool's txids), so
 * the order is stable across polls and the same from every server.
 */
export async function* getMempoolTx(
  mempool: Mempool,
  compactTx: (raw: Uint8Array) => CompactTx,
  request: GetMempoolTxRequest,
  ctx: HandlerContext,
): AsyncGenerator<CompactTx> {
  const rpc = "GetMempoolTx";
  checkExcludeSuffixes(rpc, request.excludeTxidSuffixes);
  let pools: PoolSet;
  try {
    pools = poolSetFromRequest(request.poolTypes);
  } catch (err) {
    throw new LightedgeError("bad-request", rpc, `${rpc}: ${(err as Error).message}`);
  }
  const txs = [...(await mempool.snapshot(ctx))].sort((a, b) =>
    a.displayTxid < b.displayTxid ? -1 : a.displayTxid > b.displayTxid ? 1 : 0,
  );
  const excluded = excludedIndices(
    txs.map((t) => t.wireTxid),
    request.excludeTxidSuffixes,
  );
  for (const [index, tx] of txs.entries()) {
    if (excluded.has(index)) continue;
    const kept = filterCompactTx(compactTx(tx.raw), pools);
    if (kept !== null) yield kept;
  }
}

/**
 * GetMempoolStream: the current mempool, then each new transaction as it arrives (height 0), until
 * the served tip changes — the wallet then syncs the new block and calls again (lightwalletd).
 */
export async function* getMempoolStream(
  s: Serve,
  mempool: Mempool,
  ctx: HandlerContext,
): AsyncGenerator<RawTransaction> {
  const sent = new Set<string>();
  let tipChanged = false;
  let wake: () => void = () => {};
  const unsubscribe = s.chain.onTip(() => {
    tipChanged = true;
    wake();
  });
  const onAbort = () => wake();
  ctx.signal.addEventListener("abort", onAbort);
  try {
    while (!tipChanged && !ctx.signal.aborted) {
      for (const tx of await mempool.snapshot(ctx)) {
        if (sent.has(tx.displayTxid)) continue;
        sent.add(tx.displayTxid);
        yield create(RawTransactionSchema, { data: tx.raw, height: 0n });
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, MEMPOOL_POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    unsubscribe();
    ctx.signal.removeEventListener("abort", onAbort);
  }
}
