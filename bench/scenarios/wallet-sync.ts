import { runWallet, type WalletOptions } from "../../test/support/wallet-harness.ts";
import { startWalletSystem, type WalletServer } from "../../test/support/wallet-system.ts";
import { processCpuSeconds, processTree } from "../lib/proc-cpu.ts";
import type { Scenario } from "../scenario.ts";

/**
 * A real wallet's first sync (test/wallet: zcash_client_backend's `sync::run`), the same wallet of
 * the same chain from the edge (gRPC-web, workerd under wrangler dev) and from the origin (native
 * gRPC), side by side in one run. Its own system (`test/support/wallet-system.ts`): a synthetic
 * regtest chain with every pool, sealed in 1,000-block ranges with a tail on top.
 *
 * Server CPU is read from /proc: the origin (and the dev node, idle during a sync) run in this
 * process, so for the origin it is this process's own CPU; for the edge, this process's (the
 * origin answers the tail and the store directory is served from here) plus wrangler's and
 * workerd's. The wallet is a child of this process and is never counted.
 */
/** At most this many blocks (`--blocks` caps it lower): the wallet scans every one, twice. */
const MAX_BLOCKS = 10_000;
const RANGE_SIZE = 1_000;
const SEAL_DEPTH = 100;

export const scenario: Scenario = {
  name: "wallet-sync",
  async run(ctx) {
    const blocks = Math.min(ctx.settings.blocks, MAX_BLOCKS);
    const system = await startWalletSystem({
      chain: { synthetic: { blocks, seed: "lightedge-bench-wallet" } },
      // Several sealed ranges even on a chain shortened with --blocks.
      rangeSize: Math.min(RANGE_SIZE, Math.max(10, Math.floor(blocks / 10))),
      sealDepth: SEAL_DEPTH,
    });
    try {
      const tip = await system.settle(600_000);
      ctx.log(`wallet-sync: ${tip + 1} blocks, sealed to ${system.all.origin.indexer.view.sealedTip()}`);
      const wranglerPid = system.all.edge.child.pid;
      for (const server of [...system.servers].reverse()) {
        const pids = server.name === "edge" && wranglerPid !== undefined ? processTree(wranglerPid) : [];
        const cpu = () => processCpuSeconds(process.pid) + pids.reduce((s, p) => s + processCpuSeconds(p), 0);
        const cpuBefore = cpu();
        const r = await runWallet("sync", walletOptions(server, ctx.tmp));
        const cpuSec = cpu() - cpuBefore;
        if (!r.ok) throw new Error(`wallet sync from the ${server.name} failed: ${r.error}`);
        const scanned = r.blocksScanned ?? 0;
        const seconds = (r.elapsedMs ?? 0) / 1000;
        const blocksPerSec = Math.round(scanned / seconds);
        const cpuMsPerBlock = Math.round((cpuSec * 1000 * 1000) / scanned) / 1000;
        ctx.report.figures[`wallet.sync.${server.name}.blocksPerSec`] = blocksPerSec;
        ctx.report.figures[`wallet.sync.${server.name}.serverCpuMsPerBlock`] = cpuMsPerBlock;
        ctx.report.rows.push({
          scenario: `wallet sync ${server.name} (${server.transport})`,
          metric: `${scanned} blocks, blocks/s`,
          value: blocksPerSec,
          note: `${seconds.toFixed(1)} s, server CPU ${cpuMsPerBlock} ms/block`,
        });
        ctx.log(
          `wallet-sync ${server.name}: ${scanned} blocks, ${blocksPerSec} blocks/s, ${cpuMsPerBlock} ms CPU/block`,
        );
      }
    } finally {
      await system.close();
    }
  },
};

/** A fresh wallet directory per server: both syncs start from the same birthday. */
function walletOptions(server: WalletServer, tmp: string): WalletOptions {
  return {
    server: server.url,
    transport: server.transport,
    network: "regtest",
    birthday: 1,
    walletDir: `${tmp}/wallet-sync-${server.name}`,
  };
}
