import { Counter, type Registry } from "prom-client";

/**
 * The tree-state comparison with the node (node-check.ts), on the origin's registry beside the
 * indexer's metrics (origin/admin/index-metrics.ts). `mismatch` is the alarm: any increase means
 * the node reports a different tree state or subtree root than the origin computed (and serves).
 */
export interface TreeStateMetrics {
  mismatch: Counter<"pool">;
  checks: Counter<"kind" | "result">;
}

export function createTreeStateMetrics(registry: Registry): TreeStateMetrics {
  return {
    mismatch: new Counter({
      name: "lightedge_treestate_node_mismatch_total",
      help: "Alarm: tree states or subtree roots the node reports differently from the origin's own (served)",
      labelNames: ["pool"],
      registers: [registry],
    }),
    checks: new Counter({
      name: "lightedge_treestate_node_checks_total",
      help: "Comparisons of the origin's tree states (kind=state) and subtree roots (kind=subtree) with the node's, by result (equal, mismatch, absent: the node lacks it or failed, dropped: queue full)",
      labelNames: ["kind", "result"],
      registers: [registry],
    }),
  };
}
