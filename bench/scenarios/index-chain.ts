import { deliverBlocksApart } from "../lib/node-delivery.ts";
import { round, rssGrowth } from "../lib/stats.ts";
import type { Scenario } from "../scenario.ts";

/** The origin's defaults (origin/config.ts `--concurrency` 16; origin/index/indexer.ts chunk 50). */
const CONCURRENCY = 16;
const CHUNK = 50;

/**
 * Index a synthetic chain from the dev node end to end (`lightedge index --exit-when-synced`, its
 * own process): blocks/s, origin CPU per 1,000 blocks, peak RSS and RSS every 5 s (flat, not only
 * bounded); the dev node's start-up apart. Then, in the same run and alone, what the dev node
 * itself delivers at the indexer's concurrency: raw `getblock h 0` (`index.vsNodeDelivery` =
 * index rate ÷ that rate, the limit an indexer is read against) and every call the indexer makes
 * per block (`index.vsNodeIndexCalls`). Then storage: bytes the store holds per projection
 * against the raw protobuf messages.
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
    const rss = rssGrowth(s.rssSeriesMiB);
    f["index.rssAfterWarmupMiB"] = rss.afterWarmupMiB;
    f["index.rssEndMiB"] = rss.endMiB;
    f["index.rssGrowthMiB"] = rss.growthMiB;
    const at = {
      url: chain.devnode.url,
      pid: chain.devnode.pid,
      tip: s.blocks - 1,
      concurrency: CONCURRENCY,
      chunk: CHUNK,
    };
    const delivery = await deliverBlocksApart({ ...at, calls: "raw" });
    const indexCalls = await deliverBlocksApart({ ...at, calls: "index" });
    f["index.nodeDeliveryBlocksPerSec"] = round(s.blocks / delivery.seconds, 0);
    f["index.nodeIndexCallsBlocksPerSec"] = round(s.blocks / indexCalls.seconds, 0);
    f["index.vsNodeDelivery"] = round(delivery.seconds / s.seconds, 3);
    f["index.vsNodeIndexCalls"] = round(indexCalls.seconds / s.seconds, 3);
    // CPU per 1,000 blocks of each side of the delivery passes: both share the machine's cores
    // with each other (and, while indexing, the dev node with lightedge index).
    f["index.nodeDeliveryDevnodeCpuSecPer1000"] = round((delivery.nodeCpuSec * 1000) / s.blocks);
    f["index.nodeDeliveryClientCpuSecPer1000"] = round((delivery.clientCpuSec * 1000) / s.blocks);
    f["index.nodeIndexCallsDevnodeCpuSecPer1000"] = round((indexCalls.nodeCpuSec * 1000) / s.blocks);
    const raw = scan.rawBytes.shielded + scan.rawBytes.full + scan.rawBytes.nullifiers;
    const { trees, ...blockStorage } = scan.storedBytes;
    const stored = Object.values(blockStorage).reduce((a, b) => a + b, 0);
    f["storage.overhead"] = round(stored / raw, 4);
    for (const p of ["shielded", "full", "nullifiers"] as const)
      f[`storage.${p}.overhead`] = round(scan.storedBytes[p] / scan.rawBytes[p], 4);
    f["storage.bytesPerBlock"] = round(stored / (scan.sealedTip - scan.firstHeight + 1), 0);
    // Node-free history (issue 20), apart from block storage: bytes per block of each kind.
    for (const [kind, bytes] of Object.entries(scan.historyBytes))
      f[`storage.history.${kind}.bytesPerBlock`] = round(bytes / (scan.sealedTip - scan.firstHeight + 1), 1);
    // Tree states (issue 10), stored beside the ranges by `lightedge backfill-trees`: apart.
    const backfilled = !Number.isNaN(s.treesBackfillSec);
    if (backfilled) {
      f["storage.treesBytesPerBlock"] = round(trees / (scan.sealedTip - scan.firstHeight + 1), 0);
      f["trees.backfillSec"] = round(s.treesBackfillSec, 2);
    }
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
      {
        scenario: "index",
        metric: "RSS growth after warm-up MiB (flat ≈ 0)",
        value: f["index.rssGrowthMiB"]!,
        note: `${rss.afterWarmupMiB} → ${rss.endMiB} MiB, ${s.rssSeriesMiB.length} samples`,
      },
      {
        scenario: "index",
        metric: `dev node raw getblock h 0 blocks/s alone (${CONCURRENCY} × ${CHUNK}-block batches)`,
        value: f["index.nodeDeliveryBlocksPerSec"]!,
        note: `CPU s / 1,000 blocks: dev node ${f["index.nodeDeliveryDevnodeCpuSecPer1000"]}, client ${f["index.nodeDeliveryClientCpuSecPer1000"]}`,
      },
      {
        scenario: "index",
        metric: "index.vsNodeDelivery (index ÷ raw delivery, goal ≥ 0.8)",
        value: f["index.vsNodeDelivery"]!,
        note: `×${f["index.vsNodeIndexCalls"]} of the indexer's own calls alone (${f["index.nodeIndexCallsBlocksPerSec"]} blocks/s)`,
      },
      { scenario: "storage", metric: "stored / raw protobuf (target ≤ 1.03)", value: f["storage.overhead"]! },
    );
    if (backfilled)
      rows.push({
        scenario: "trees",
        metric: "backfill-trees s (tree states of every sealed range)",
        value: f["trees.backfillSec"]!,
        note: `${f["storage.treesBytesPerBlock"]} bytes/block, not in index blocks/s`,
      });
    ctx.log(
      `indexed ${s.blocks} blocks in ${s.seconds.toFixed(1)} s (${f["index.blocksPerSec"]} blocks/s), ` +
        `RSS ${f["index.peakRssMiB"]} MiB peak (${s.rssSeriesMiB.map(Math.round).join(" ")}), ` +
        `storage ×${f["storage.overhead"]}; dev node alone ${f["index.nodeDeliveryBlocksPerSec"]} blocks/s ` +
        `raw (×${f["index.vsNodeDelivery"]}), ${f["index.nodeIndexCallsBlocksPerSec"]} with the indexer's calls ` +
        `(×${f["index.vsNodeIndexCalls"]})`,
    );
  },
};
