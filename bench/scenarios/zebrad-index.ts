import { spawn } from "node:child_process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { deliverBlocksApart } from "../lib/node-delivery.ts";
import { processCpuSeconds } from "../lib/proc-cpu.ts";
import { watchProcess } from "../lib/process-watch.ts";
import { round } from "../lib/stats.ts";
import type { Scenario } from "../scenario.ts";

/**
 * Indexing from a real zebrad (opt-in: `--only zebrad-index`, needs LIGHTEDGE_ZEBRAD from
 * scripts/ensure-zebrad.sh). zebrad 7.0.0 on Regtest mines `--zebrad-blocks` blocks (default 20,000: fewer and the indexer's process start-up dominates)
 * with `generate`; then, in the same run and each alone:
 * - zebrad's own delivery: every block as raw `getblock h 0`, fetched the way the indexer fetches
 *   (CONCURRENCY chunks of CHUNK blocks in flight, one JSON-RPC batch per chunk) — what the node
 *   can hand out at the indexer's concurrency;
 * - the real `lightedge index --exit-when-synced` (its own process, same concurrency) into a
 *   directory store.
 * `index.zebrad.vsNodeDelivery` = index blocks/s ÷ delivery blocks/s: how close the indexer comes
 * to the node's own pace (the indexer also asks `getblock h 1` for the last block of each batch,
 * and parses, projects and seals).
 */

/** The origin's defaults (origin/config.ts `--concurrency` 16; origin/index/indexer.ts chunk 50). */
const CONCURRENCY = 16;
const CHUNK = 50;
const RANGE_SIZE = 1000;
/** `generate` per call: zebrad mines them one by one; smaller calls keep its RPC responsive. */
const GENERATE_BATCH = 500;

function zebradBlocks(): number {
  const { values } = parseArgs({ strict: false, options: { "zebrad-blocks": { type: "string" } } });
  const n = Number(values["zebrad-blocks"] ?? 20_000);
  if (!Number.isInteger(n) || n < CHUNK)
    throw new Error(`zebrad-index: --zebrad-blocks must be an integer ≥ ${CHUNK}`);
  return n;
}

export const scenario: Scenario = {
  name: "zebrad-index",
  async run(ctx) {
    // Imported here: the support module refuses to load in CI without zebrad, and this scenario
    // runs only when named.
    const { hasZebrad, missingZebradMessage, startZebrad } = await import("../../test/support/zebrad.ts");
    if (!hasZebrad) throw new Error(missingZebradMessage);
    const blocks = zebradBlocks();
    const zebrad = await startZebrad();
    const f = ctx.report.figures;
    try {
      const mineStarted = performance.now();
      for (let left = blocks; left > 0; left -= GENERATE_BATCH)
        await zebrad.generate(Math.min(GENERATE_BATCH, left));
      const tip = await zebrad.height();
      const mineSec = (performance.now() - mineStarted) / 1000;
      ctx.log(`zebrad: mined ${tip} blocks in ${mineSec.toFixed(1)} s`);

      // zebrad's own delivery, alone: heights 0..tip as raw getblock, CONCURRENCY batches in flight.
      const at = { url: zebrad.url, pid: zebrad.pid, tip, concurrency: CONCURRENCY, chunk: CHUNK };
      const delivery = await deliverBlocksApart({ ...at, calls: "raw" });
      // The same with every call the indexer makes (origin/node/blocks.ts fetchRawBlocks: getblock
      // verbosity 0 per block, verbosity 1 for each batch's last): the node's share of its time.
      const indexCalls = await deliverBlocksApart({ ...at, calls: "index" });

      // The real indexer, its own process, against the same zebrad.
      const args = [
        ...[
          "index",
          "--node",
          zebrad.url,
          "--network",
          "regtest",
          "--store",
          `dir:${join(ctx.tmp, "zebrad-store")}`,
        ],
        ...["--data-dir", join(ctx.tmp, "zebrad-origin-data"), "--range-size", String(RANGE_SIZE)],
        ...["--concurrency", String(CONCURRENCY), "--exit-when-synced"],
        ...["--admin", "off", "--progress", "off", "--log-level", "warn"],
      ];
      const cpu1 = processCpuSeconds(zebrad.pid);
      const indexStarted = performance.now();
      const child = spawn(process.execPath, [join(ctx.repoRoot, "origin/cli/main.ts"), ...args], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => {
        stderr = (stderr + c.toString()).slice(-4000);
      });
      const watch = watchProcess(child.pid!);
      const code = await new Promise<number | null>((r) => child.once("exit", r));
      const indexSec = (performance.now() - indexStarted) / 1000;
      const zebradIndexCpu = processCpuSeconds(zebrad.pid) - cpu1;
      const { cpuSec, peakRssMiB } = watch.stop();
      if (code !== 0) throw new Error(`lightedge index exited with ${code}: ${stderr}`);

      const count = tip + 1;
      f["index.zebrad.blocks"] = count;
      f["index.zebrad.mineSec"] = round(mineSec, 1);
      f["index.zebrad.nodeDeliveryBlocksPerSec"] = round(count / delivery.seconds, 0);
      f["index.zebrad.nodeDeliveryZebradCpuSec"] = round(delivery.nodeCpuSec, 2);
      f["index.zebrad.nodeIndexCallsBlocksPerSec"] = round(count / indexCalls.seconds, 0);
      f["index.zebrad.nodeIndexCallsZebradCpuSec"] = round(indexCalls.nodeCpuSec, 2);
      f["index.zebrad.blocksPerSec"] = round(count / indexSec, 0);
      f["index.zebrad.seconds"] = round(indexSec, 2);
      f["index.zebrad.originCpuSec"] = round(cpuSec, 2);
      f["index.zebrad.zebradCpuSec"] = round(zebradIndexCpu, 2);
      f["index.zebrad.peakRssMiB"] = round(peakRssMiB, 0);
      f["index.zebrad.vsNodeDelivery"] = round(delivery.seconds / indexSec, 3);
      f["index.zebrad.vsNodeIndexCalls"] = round(indexCalls.seconds / indexSec, 3);
      ctx.report.rows.push(
        {
          scenario: "zebrad-index",
          metric: `zebrad raw getblock h 0 blocks/s (${CONCURRENCY} × ${CHUNK}-block batches)`,
          value: f["index.zebrad.nodeDeliveryBlocksPerSec"]!,
        },
        {
          scenario: "zebrad-index",
          metric: "zebrad blocks/s answering the indexer's calls alone (getblock 0 per block, 1 per batch)",
          value: f["index.zebrad.nodeIndexCallsBlocksPerSec"]!,
        },
        {
          scenario: "zebrad-index",
          metric: "lightedge index blocks/s from zebrad (process start-up included)",
          value: f["index.zebrad.blocksPerSec"]!,
        },
        {
          scenario: "zebrad-index",
          metric: "index.zebrad.vsNodeDelivery (index ÷ raw delivery)",
          value: f["index.zebrad.vsNodeDelivery"]!,
          note: `${count} Regtest blocks, zebrad 7.0.0`,
        },
      );
      ctx.log(
        `zebrad: raw getblock ${f["index.zebrad.nodeDeliveryBlocksPerSec"]} blocks/s; ` +
          `lightedge index ${f["index.zebrad.blocksPerSec"]} blocks/s in ${indexSec.toFixed(1)} s ` +
          `(×${f["index.zebrad.vsNodeDelivery"]} of raw delivery, ` +
          `×${f["index.zebrad.vsNodeIndexCalls"]} of the indexer's calls alone at ` +
          `${f["index.zebrad.nodeIndexCallsBlocksPerSec"]} blocks/s)`,
      );
    } finally {
      await zebrad.stop();
    }
  },
};
