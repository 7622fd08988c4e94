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

/** How an error is reported beyond its code: hidden causes go to `log`; Unavailable gets a pushback. */
export interface ErrorReporting {
  /** Receives anything whose detail is hidden from the client. */
  log?: (err: unknown) => void;
  /**
   * `grpc-retry-pushback-ms` on every Unavailable that has none, so gRPC clients with retry
   * policies back off instead of hammering a backend that is down or saturated (gRPC A6).
   */
  pushbackMs?: number;
}

/**
 * The one mapping from errors to Connect statuses, for the edge and the origin alike. `rpc` is the
 * method name; messages start with it, as lightwalletd's do.
 */
export function toConnectError(
  rpc: string,
  err: unknown,
  report?: ErrorReporting | ((err: unknown) => void),
): ConnectError {
  const r: ErrorReporting = typeof report === "function" ? { log: report } : (report ?? {});
  let mapped = mapError(rpc, err, r.log);
  // A message quoting client input may hold a lone surrogate, which connect's grpc-message
  // encoding (encodeURIComponent) cannot write: the call would end with no status at all.
  const wellFormed = wellFormedText(mapped.rawMessage);
  if (wellFormed !== mapped.rawMessage)
    mapped = new ConnectError(wellFormed, mapped.code, mapped.metadata, undefined, mapped.cause);
  if (r.pushbackMs !== undefined && mapped.code === Code.Unavailable && !mapped.metadata.has(PUSHBACK))
    mapped.metadata.set(PUSHBACK, String(r.pushbackMs));
  return mapped;
}

const PUSHBACK = "grpc-retry-pushback-ms";

function mapError(rpc: string, err: unknown, log?: (err: unknown) => void): ConnectError {
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

/** `text` with every lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, ES2024). */
function wellFormedText(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

/** The Connect code a kind maps to (for transports that write status themselves). */
export function codeForKind(kind: ErrorKind): Code {
  return codeByKind[kind];
}
