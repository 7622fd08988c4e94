import { type ErrorKind, LightedgeError } from "../../proto/errors.ts";

/** Why a node call failed, finer than the kind (for logs, metrics and tests). */
export type NodeFailure =
  | "auth" // HTTP 401/403: wrong user/password or stale cookie
  | "wrong-network" // the node follows another chain than configured
  | "syncing" // the node is still in initial block download / warming up
  | "refused" // connection refused, reset or closed early
  | "timeout" // no answer within timeoutMs
  | "http-status" // another HTTP status (429, 503, 5xx…)
  | "node-error" // a JSON-RPC error object from the node
  | "bad-response" // the body is not the JSON-RPC answer we asked for
  | "too-large"; // the answer is over its method's bound (answer-limits.ts)

/**
 * A failed node call. `code` is the node's JSON-RPC error code (node-error) or the HTTP status
 * (http-status, auth); `transient` says whether a retry may succeed.
 */
export class NodeRpcError extends LightedgeError {
  readonly failure: NodeFailure;
  readonly code?: number;
  readonly transient: boolean;

  constructor(
    kind: ErrorKind,
    where: string,
    message: string,
    detail: { failure: NodeFailure; code?: number; transient?: boolean; cause?: unknown },
  ) {
    super(kind, where, message, { cause: detail.cause });
    this.failure = detail.failure;
    this.code = detail.code;
    this.transient = detail.transient ?? false;
  }
}

/**
 * Node error codes (bitcoind/zcashd RPC codes, which zebrad reuses):
 * −5 RPC_INVALID_ADDRESS_OR_KEY ("not found"), −8 RPC_INVALID_PARAMETER (zebrad: height past the
 * tip, "Block not found"), −10 RPC_CLIENT_IN_INITIAL_DOWNLOAD, −28 RPC_IN_WARMUP,
 * −32601 method not found, −32602 invalid params.
 */
export function kindForNodeCode(code: number): { kind: ErrorKind; transient: boolean; failure: NodeFailure } {
  switch (code) {
    case -5:
      return { kind: "not-found", transient: false, failure: "node-error" };
    case -8:
      return { kind: "above-tip", transient: false, failure: "node-error" };
    case -10:
    case -28:
      return { kind: "unavailable", transient: true, failure: "syncing" };
    case -32601:
      return { kind: "unsupported", transient: false, failure: "node-error" };
    default:
      return { kind: "bad-request", transient: false, failure: "node-error" };
  }
}

/** The error for a JSON-RPC error object returned by the node. */
export function nodeCodeError(method: string, code: number, message: string): NodeRpcError {
  const { kind, transient, failure } = kindForNodeCode(code);
  return new NodeRpcError(kind, `node-client.${method}`, `node ${method}: ${message} (code ${code})`, {
    failure,
    code,
    transient,
  });
}

/** The error for a non-200 HTTP status. 429/5xx are transient "unavailable", never passed raw. */
export function httpStatusError(method: string, status: number): NodeRpcError {
  const where = `node-client.${method}`;
  if (status === 401 || status === 403)
    return new NodeRpcError("unavailable", where, `node ${method}: authentication failed (HTTP ${status})`, {
      failure: "auth",
      code: status,
    });
  const transient = status === 429 || status === 408 || status >= 500;
  return new NodeRpcError("unavailable", where, `node ${method}: node answered HTTP ${status}`, {
    failure: "http-status",
    code: status,
    transient,
  });
}
