import type { HandlerContext } from "@connectrpc/connect";
import type { CompactTx } from "../../proto/index.ts";
import type { RpcErrorLog as ErrorLog } from "../../proto/wire/error-interceptor.ts";
import type { IndexHistory } from "../index/indexer.ts";
import type { BufferPool } from "../store/index.ts";
import type { TreeStateService } from "../treestate/service.ts";
import { createTrafficClassifier } from "./edge-secret.ts";
import { createNodeGate, DEFAULT_NODE_GATE, type NodeGate, type NodeGateOptions } from "./node-gate.ts";
import type { ChainView, ServeNode } from "./ports.ts";
import type { RpcObserver } from "./serve-metrics.ts";

/** Everything the service is built from. Only `chain`, `node` and `network` are required. */
export interface OriginServiceOptions {
  chain: ChainView;
  node: ServeNode;
  network: "mainnet" | "testnet" | "regtest";
  /** Edge shared secrets (any of them marks edge traffic; a list so secrets can rotate). */
  secrets?: readonly string[];
  /** Enables Ping (testing only, as lightwalletd's --ping-very-insecure). */
  ping?: boolean;
  /** LightdInfo.donationAddress (empty when unset). */
  donationAddress?: string;
  /** Bounds on node calls. */
  nodeGate?: Partial<NodeGateOptions>;
  /** `grpc-retry-pushback-ms` on Unavailable (default 1000). */
  retryPushbackMs?: number;
  /** Mempool and node-info cache lifetime (default 2000, lightwalletd's mempool poll). */
  cacheTtlMs?: number;
  /** Builds a mempool transaction's CompactTx (all pools) from its raw bytes. */
  compactTx?: (raw: Uint8Array) => CompactTx;
  /** Build identity for GetLightdInfo. */
  build?: Partial<{
    version: string;
    gitCommit: string;
    branch: string;
    buildDate: string;
    buildUser: string;
  }>;
  /** Node-free history: serves lightedge.history.v1.History (the edge's tail merge) when set. */
  history?: IndexHistory;
  /** Tree states and subtree roots computed by the origin and stored (origin/treestate). */
  treeStates?: TreeStateService;
  /** Errors whose detail stays in logs (Internal). */
  log?: ErrorLog;
  /** Per-call metrics (serve-metrics.ts). */
  observer?: RpcObserver;
  /**
   * Serve binary block RPCs with stored frames written straight into the response (fast/;
   * default true). false sends every call through connect-node (tests and bench compare both).
   */
  fastPath?: boolean;
  /**
   * The fast path's read buffers (origin/store/buffer-pool.ts); default one per server. Tests pass
   * one with a small minimum so small ranges are pooled too.
   */
  readPool?: BufferPool;
}

/** `grpc-retry-pushback-ms` on Unavailable unless configured. */
export const DEFAULT_RETRY_PUSHBACK_MS = 1000;

/** What handlers share: the ports, the node gate, and a node-call helper per request. */
export interface Serve {
  options: Readonly<OriginServiceOptions>;
  chain: ChainView;
  node: ServeNode;
  gate: NodeGate;
  pushbackMs: number;
  ttlMs: number;
  /**
   * Runs a node call under the gate with the request's traffic class, bounded by the request's
   * deadline and its client's presence (ctx.signal): see node-gate.ts.
   */
  callNode<T>(ctx: HandlerContext, where: string, call: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

export function createServe(options: OriginServiceOptions): Serve {
  const gate = createNodeGate({ ...DEFAULT_NODE_GATE, ...options.nodeGate });
  const traffic = createTrafficClassifier(options.secrets ?? []);
  return {
    options,
    chain: options.chain,
    node: options.node,
    gate,
    pushbackMs: options.retryPushbackMs ?? DEFAULT_RETRY_PUSHBACK_MS,
    ttlMs: options.cacheTtlMs ?? 2000,
    callNode: (ctx, where, call) => gate.run(traffic(ctx.requestHeader), where, call, ctx.signal),
  };
}
