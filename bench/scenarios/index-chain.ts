import { round } from "../lib/stats.ts";
import type { Scenario } from "../scenario.ts";

/**
 * Index a synthetic chain from the dev node end to end (`lightedge index --exit-when-synced`, its
 * own process): blocks/s, origin CPU per 1,000 blocks, peak RSS; the dev node's start-up apart.
 * Then storage: bytes the store holds per projection against the raw protobuf messages.
 */
export const scenario: Scenario = {
  name: "index",
  async run(ctx) {
    const chain = await ctx.fixtures.chain();
    const scan = await ctx.fixtures.scan();
    const s = chain.stats;
    const f = ctx.report.figures;
    f["devnode.startupSec"] = round(s.devnodeStartupSec, 2);
    f["devnode.startupCpuSec"] = round(s.devnodeStartupCpuSec, 2);
    f["index.blocks"] = s.blocks;
    f["index.seconds"] = round(s.seconds, 2);
    f["index.blocksPerSec"] = round(s.blocks / s.seconds, 0);
    f["index.originCpuSecPer1000"] = round((s.originCpuSec * 1000) / s.blocks);
    f["index.devnodeCpuSecPer1000"] = round((s.devnodeCpuSec * 1000) / s.blocks);
    f["index.peakRssMiB"] = round(s.peakRssMiB, 0);
    const raw = scan.rawBytes.shielded + scan.rawBytes.full + scan.rawBytes.nullifiers;
    const { trees, ...blockStorage } = scan.storedBytes;
    const stored = Object.values(blockStorage).reduce((a, b) => a + b, 0);
    f["storage.overhead"] = round(stored / raw, 4);
    for (const p of ["shielded", "full", "nullifiers"] as const)
      f[`storage.${p}.overhead`] = round(scan.storedBytes[p] / scan.rawBytes[p], 4);
    f["storage.bytesPerBlock"] = round(stored / (scan.sealedTip - scan.firstHeight + 1), 0);
    // Tree states (issue 10), stored beside the ranges by `lightedge backfill-trees`: apart.
    f["storage.treesBytesPerBlock"] = round(trees / (scan.sealedTip - scan.firstHeight + 1), 0);
    f["trees.backfillSec"] = round(s.treesBackfillSec, 2);
    const rows = ctx.report.rows;
    rows.push(
      {
        scenario: "index",
        metric: "dev node start-up s",
        value: s.devnodeStartupSec,
        note: "not in blocks/s",
      },
      { scenario: "index", metric: "blocks/s (target ≥ 20,000)", value: f["index.blocksPerSec"]! },
      { scenario: "index", metric: "origin CPU s / 1,000 blocks", value: f["index.originCpuSecPer1000"]! },
      { scenario: "index", metric: "dev node CPU s / 1,000 blocks", value: f["index.devnodeCpuSecPer1000"]! },
      { scenario: "index", metric: "peak RSS MiB (target ≤ 1,024)", value: f["index.peakRssMiB"]! },
      { scenario: "storage", metric: "stored / raw protobuf (target ≤ 1.03)", value: f["storage.overhead"]! },
      {
        scenario: "trees",
        metric: "backfill-trees s (tree states of every sealed range)",
        value: f["trees.backfillSec"]!,
        note: `${f["storage.treesBytesPerBlock"]} bytes/block, not in index blocks/s`,
      },
    );
    ctx.log(
      `indexed ${s.blocks} blocks in ${s.seconds.toFixed(1)} s (${f["index.blocksPerSec"]} blocks/s), ` +
        `RSS ${f["index.peakRssMiB"]} MiB, storage ×${f["storage.overhead"]}`,
    );
  },
};
