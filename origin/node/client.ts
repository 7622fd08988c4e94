import { addressMethods } from "./address.ts";
import { chainMethods } from "./blocks.ts";
import { infoMethods } from "./info.ts";
import type { NodeClient, NodeClientConfig } from "./ports.ts";
import { createRpcCaller } from "./rpc.ts";
import { transactionMethods } from "./transactions.ts";
import { createHttpTransport } from "./transport.ts";
import { treeStateMethods } from "./tree-states.ts";

/** Defaults: generous timeout for big blocks, a bounded pipeline, a few quick retries. */
const defaults = {
  timeoutMs: 30_000,
  maxInFlight: 16,
  retries: 3,
  backoffMs: 100,
  batch: true,
  batchSize: 100,
};

/**
 * A JSON-RPC client for zebrad/zcashd implementing every role of ./ports.ts: one module per role
 * (info.ts, blocks.ts, transactions.ts, address.ts, tree-states.ts) over one RPC caller (rpc.ts:
 * batching, retries) and transport (transport.ts: sockets, the in-flight bound, auth).
 */
export function createNodeClient(config: NodeClientConfig): NodeClient {
  const c = Object.freeze({ ...defaults, ...config });
  const transport = createHttpTransport(c);
  const rpc = createRpcCaller(transport, c);
  return {
    ...infoMethods(rpc, c.network),
    ...chainMethods(rpc, c.batchSize),
    ...transactionMethods(rpc),
    ...addressMethods(rpc),
    ...treeStateMethods(rpc),
    close: () => transport.close(),
  };
}
