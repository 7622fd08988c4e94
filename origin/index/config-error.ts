import { LightedgeError } from "../../proto/errors.ts";
import { NodeRpcError } from "../node/errors.ts";

/**
 * A fatal mismatch between the configuration and the node or store (wrong network, a start height
 * the node does not serve, another range size in the store): waiting can not fix it, so the
 * indexer stops and `lightedge origin` / `lightedge index` exit non-zero with this message.
 * Every other failure is retried with backoff while /healthz fails with its reason.
 */
export class IndexerConfigError extends LightedgeError {
  constructor(where: string, message: string, options?: { cause?: unknown }) {
    super("bad-request", where, message, options);
  }
}

/** True for errors no retry can fix: configuration errors and a node on another network. */
export function isConfigurationError(err: unknown): boolean {
  return (
    err instanceof IndexerConfigError || (err instanceof NodeRpcError && err.failure === "wrong-network")
  );
}
