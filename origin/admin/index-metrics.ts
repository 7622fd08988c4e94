import { Counter, Gauge, type Registry } from "prom-client";
import type { IndexMetrics } from "../index/reporting.ts";

/**
 * The indexer's metrics (origin/index/reporting.ts) as Prometheus gauges and counters in
 * `registry`: tip, sealed tip, lag, blocks/s, reorgs, node errors, bytes uploaded, and the alarm a
 * reorg deeper than the seal depth raises.
 */
export function createIndexMetrics(registry: Registry): IndexMetrics {
  const gauge = (name: string, help: string, labelNames: string[] = []) =>
    new Gauge({ name, help, labelNames, registers: [registry] });
  const counter = (name: string, help: string, labelNames: string[] = []) =>
    new Counter({ name, help, labelNames, registers: [registry] });
  return {
    tipHeight: gauge("lightedge_index_tip_height", "Height of the newest served block (tail tip)"),
    sealedHeight: gauge(
      "lightedge_index_sealed_height",
      "Height of the last block in sealed ranges (the head)",
    ),
    nodeTipHeight: gauge("lightedge_index_node_tip_height", "The node's best block height at the last poll"),
    lagBlocks: gauge("lightedge_index_lag_blocks", "Node tip minus served tip"),
    blocksPerSecond: gauge(
      "lightedge_index_blocks_per_second",
      "Blocks indexed per second over the last 10 s",
    ),
    blocksIndexed: counter("lightedge_index_blocks_total", "Blocks fetched, parsed and projected"),
    reorgs: counter("lightedge_index_reorgs_total", "Chain reorganizations followed"),
    reorgDepth: gauge("lightedge_index_last_reorg_depth", "Blocks rolled back by the last reorg"),
    deepTailReorgs: counter(
      "lightedge_index_deep_tail_reorgs_total",
      "Reorgs deeper than the seal depth rolled back inside the unsealed tail",
    ),
    nodeErrors: counter("lightedge_index_node_errors_total", "Failed node requests, by error kind", ["kind"]),
    uploadedBytes: counter("lightedge_index_uploaded_bytes_total", "Bytes written to the object store"),
    rangesSealed: counter("lightedge_index_ranges_sealed_total", "Sealed ranges written"),
    alarm: gauge(
      "lightedge_index_alarm",
      "1 when following stopped: a reorg reached sealed ranges (the tail is withheld)",
      ["reason"],
    ),
  };
}
