// Public API of the node client. Role interfaces in ./ports.ts.

export { createNodeClient } from "./client.ts";
export { NodeRpcError } from "./errors.ts";
export type * from "./ports.ts";
