import { Code, ConnectError } from "@connectrpc/connect";

/**
 * What went wrong, in domain terms. Each kind tells the caller what to do about it; exactly one
 * place (`toConnectError`) turns a kind into a Connect code, for the edge and the origin alike.
 */
export type ErrorKind =
  /** The request itself is wrong (bad height, malformed hash, bad pool type). */
  | "bad-request"
  /** A height above the served tip: the client should retry later (protocol.md: OUT_OF_RANGE). */
  | "above-tip"
  /** Truly absent: unknown hash, transaction or object. */
  | "not-found"
  /** A backend (node, origin, store) is down, syncing or saturated; retry later. */
  | "unavailable"
  /** Stored data failed a check (checksum, magic, truncation): never serve it. */
  | "corrupt"
  /** Blocks stopped chaining (prevHash mismatch), usually a reorg mid-stream. */
  | "chain-break"
  /** A request over a named limit (address list, body size). */
  | "too-large"
  /** A method this server does not offer on this transport. */
  | "unsupported"
  /** Bytes from a node that do not parse as what they claim to be. */
  | "malformed"
  /** A bug or an unexpected state. */
  | "internal";

/** A domain error: a kind, where it happened, and the message a client may see. */
export class LightedgeError extends Error {
  override readonly name = "LightedgeError";
  readonly kind: ErrorKind;
  /** Module or operation where it was raised, e.g. "range-codec" or "node-client.getblock". */
  readonly where: string;

  constructor(kind: ErrorKind, where: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
    this.where = where;
  }
}

const codeByKind: Record<ErrorKind, Code> = {
  "bad-request": Code.InvalidArgument,
  "above-tip": Code.OutOfRange,
  "not-found": Code.NotFound,
  unavailable: Code.Unavailable,
  corrupt: Code.DataLoss,
  "chain-break": Code.Aborted,
  "too-large": Code.ResourceExhausted,
  unsupported: Code.Unimplemented,
  malformed: Code.Internal,
  internal: Code.Internal,
};

/** Kinds whose details stay in logs: the client sees a generic message. */
const hiddenKinds: ReadonlySet<ErrorKind> = new Set(["internal", "malformed"]);

/**
 * The one mapping from errors to Connect statuses. `rpc` is the method name; messages start with
 * it, as lightwalletd's do. `log` receives anything whose detail is hidden from the client.
 */
export function toConnectError(rpc: string, err: unknown, log?: (err: unknown) => void): ConnectError {
  if (err instanceof ConnectError) return err;
  if (err instanceof LightedgeError) {
    if (hiddenKinds.has(err.kind)) {
      log?.(err);
      return new ConnectError(`${rpc}: internal error`, codeByKind[err.kind], undefined, undefined, err);
    }
    const message = err.message.startsWith(`${rpc}:`) ? err.message : `${rpc}: ${err.message}`;
    return new ConnectError(message, codeByKind[err.kind], undefined, undefined, err);
  }
  log?.(err);
  return new ConnectError(`${rpc}: internal error`, Code.Internal, undefined, undefined, err);
}

/** The Connect code a kind maps to (for transports that write status themselves). */
export function codeForKind(kind: ErrorKind): Code {
  return codeByKind[kind];
}
