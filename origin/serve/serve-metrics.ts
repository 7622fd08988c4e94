import { Counter, Histogram, type Registry } from "prom-client";

/** What the service reports per call (admin port /metrics). */
export interface RpcObserver {
  observe(rpc: string, code: string, seconds: number): void;
  /** A block RPC answered on the stored-frame fast path (fast/), by protocol. */
  fastPath?(rpc: string, protocol: string): void;
}

/** Prometheus metrics of the RPC server: calls by method and status, and their durations. */
export function createServeMetrics(registry: Registry): RpcObserver {
  const calls = new Counter({
    name: "lightedge_origin_rpc_calls_total",
    help: "RPC calls by method and status code",
    labelNames: ["rpc", "code"],
    registers: [registry],
  });
  const seconds = new Histogram({
    name: "lightedge_origin_rpc_seconds",
    help: "RPC duration (streams: until the last message)",
    labelNames: ["rpc"],
    buckets: [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30],
    registers: [registry],
  });
  const fast = new Counter({
    name: "lightedge_origin_rpc_fast_path_total",
    help: "Block RPC calls answered with stored frames on the fast path, by method and protocol",
    labelNames: ["rpc", "protocol"],
    registers: [registry],
  });
  return {
    observe(rpc, code, s) {
      calls.inc({ rpc, code });
      seconds.observe({ rpc }, s);
    },
    fastPath(rpc, protocol) {
      fast.inc({ rpc, protocol });
    },
  };
}
