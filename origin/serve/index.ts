// Public API of the origin RPC server (issue 7).
export type { OriginServiceOptions } from "./context.ts";
export { EDGE_SECRET_HEADER } from "./edge-secret.ts";
export { createOriginHandler, READ_MAX_BYTES } from "./handler.ts";
export { LIGHTWALLET_PROTOCOL_VERSION } from "./lightd-info.ts";
export { DEFAULT_NODE_GATE, type NodeGateOptions, type TrafficClass } from "./node-gate.ts";
export { createOriginServer, type OriginServer } from "./origin-server.ts";
export type { ChainView, ServeNode } from "./ports.ts";
export { createServeMetrics, type RpcObserver } from "./serve-metrics.ts";
export { type ListeningServer, type ListenOptions, listen } from "./server.ts";
export { createOriginService } from "./service.ts";
