import { Code, ConnectError } from "@connectrpc/connect";
import {
  codeFromHttpStatus,
  endStreamFromJson,
  errorFromJsonBytes,
} from "@connectrpc/connect/protocol-connect";
import { LightedgeError, toConnectError } from "../../proto/errors.ts";
import { encodeFrame, FLAG_CONNECT_END_STREAM, FLAG_DATA } from "../../proto/frame.ts";
import { withinMs } from "../../proto/wire/deadline.ts";
import { type ReadFrame, readFrames } from "../../proto/wire/frames.ts";

/** The bound: with the origin down, tail and node-only calls fail within 1 s. */
export const ORIGIN_HEADERS_TIMEOUT_MS = 1_000;
/**
 * SendTransaction answers only once the node has verified the transaction: zebrad's
 * `sendrawtransaction` waits for the mempool's verifier (zebra-rpc `send_raw_transaction`), which
 * checks every proof and signature — seconds for a shielded transaction on a small machine. Its
 * headers wait that long; an origin that is down still fails at once (connection refused), and the
 * client's own deadline still applies.
 */
export const SEND_TRANSACTION_HEADERS_TIMEOUT_MS = 30_000;
/**
 * GetMempoolStream stays open until the next block (lightwalletd common/mempool.go) and the origin
 * sends its headers with the first transaction, so an empty mempool sends nothing for up to a block
 * interval (75 s target spacing, often more). Its headers wait that long; a refused connection
 * still fails at once, and the client's deadline still applies.
 */
export const MEMPOOL_STREAM_HEADERS_TIMEOUT_MS = 300_000;

/**
 * GetTaddressTxids / GetTaddressTransactions: the origin sends its headers with the first
 * transaction, after the node's `getaddresstxids` and a first `getrawtransaction` — over a second
 * for a busy address on a loaded node (lightwalletd gives the whole call 30 s). Its headers wait
 * this long; a refused connection still fails at once, and the client's deadline still applies.
 */
export const TADDRESS_STREAM_HEADERS_TIMEOUT_MS = 10_000;

/**
 * Once its headers came, how long the origin may go without sending a byte of `rpc`'s answer: its
 * headers' wait, and never less than ORIGIN_IDLE_MIN_MS. A wallet sets no deadline (connect-web
 * sends none by default), so an origin that stops mid-answer — a block range out of its memory, a
 * unary message — would otherwise hold the call, and the Worker's request, until the client gives up.
 * GetMempoolStream has none: between transactions it is silent until the next block, however long
 * that takes, and its client is waiting for exactly that.
 */
function idleTimeoutFor(rpc: string): number | undefined {
  if (rpc === "GetMempoolStream") return undefined;
  return Math.max(headersTimeoutFor(rpc), ORIGIN_IDLE_MIN_MS);
}
/** An origin answers a tail block range from memory: seconds without a frame means it is stuck. */
export const ORIGIN_IDLE_MIN_MS = 5_000;

/** How long the origin may take to send response headers for `rpc`. */
function headersTimeoutFor(rpc: string): number {
  if (rpc === "SendTransaction") return SEND_TRANSACTION_HEADERS_TIMEOUT_MS;
  if (rpc === "GetMempoolStream") return MEMPOOL_STREAM_HEADERS_TIMEOUT_MS;
  if (rpc === "GetTaddressTxids" || rpc === "GetTaddressTransactions")
    return TADDRESS_STREAM_HEADERS_TIMEOUT_MS;
  return ORIGIN_HEADERS_TIMEOUT_MS;
}
/** Header carrying the shared secret the origin checks on every proxied request. */
export const SECRET_HEADER = "x-lightedge-secret";
/** Largest message accepted from the origin: the 2 MB block limit plus generous framing slack. */
export const MAX_ORIGIN_FRAME_BYTES = 4 * 1024 * 1024;

const SERVICE = "cash.z.wallet.sdk.rpc.CompactTxStreamer";

/** The edge's view of its origin: Connect over fetch, with the secret and the 1 s deadline. */
export interface OriginClient {
  /**
   * A server-streaming call whose data frames are handed over raw, to be re-sent unchanged.
   * `timeoutMs` (the client's remaining deadline) goes on as connect-timeout-ms, so the origin
   * bounds its node calls by it.
   */
  stream(
    rpc: string,
    request: Uint8Array,
    signal?: AbortSignal,
    timeoutMs?: number,
  ): Promise<AsyncGenerator<ReadFrame>>;
  /** A unary call answering the bare response message bytes. */
  unary(rpc: string, request: Uint8Array, signal?: AbortSignal, timeoutMs?: number): Promise<Uint8Array>;
  /** fetch with the secret and the deadline, for connect-web transports (proxied RPCs). */
  fetch: typeof fetch;
}

export function createOriginClient(baseUrl: string, secret: string): OriginClient {
  const originFetch = createOriginFetch(secret);
  const post = (
    rpc: string,
    contentType: string,
    body: Uint8Array,
    signal?: AbortSignal,
    timeoutMs?: number,
  ) => {
    const headers: Record<string, string> = { "content-type": contentType, "connect-protocol-version": "1" };
    if (timeoutMs !== undefined) headers["connect-timeout-ms"] = String(Math.max(0, Math.floor(timeoutMs)));
    return originFetch(`${baseUrl}/${SERVICE}/${rpc}`, {
      method: "POST",
      headers,
      body: body as Uint8Array<ArrayBuffer>,
      signal: signal ?? null,
    });
  };
  return {
    fetch: originFetch,
    async stream(rpc, request, signal, timeoutMs) {
      const res = await post(rpc, "application/connect+proto", encodeFrame(request), signal, timeoutMs);
      await throwIfHttpError(rpc, res);
      return streamFrames(res.body!);
    },
    async unary(rpc, request, signal, timeoutMs) {
      const res = await post(rpc, "application/proto", request, signal, timeoutMs);
      await throwIfHttpError(rpc, res);
      return new Uint8Array(await res.arrayBuffer());
    },
  };
}

/**
 * fetch that adds the secret, bounds the wait for headers (headersTimeoutFor) and then each wait
 * for more of the body (idleTimeoutFor), and says Unavailable when either passes or it fails: the
 * tail's streams, unary calls and every proxied RPC go through it.
 */
function createOriginFetch(secret: string): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const rpc = url.pathname.split("/").pop() ?? "origin";
    const controller = new AbortController();
    const headersTimeoutMs = headersTimeoutFor(rpc);
    const timer = setTimeout(() => controller.abort(new Error("origin timeout")), headersTimeoutMs);
    const caller = init?.signal ?? undefined;
    if (caller?.aborted) controller.abort(caller.reason);
    else caller?.addEventListener("abort", () => controller.abort(caller.reason), { once: true });
    const headers = new Headers(init?.headers);
    headers.set(SECRET_HEADER, secret);
    try {
      const res = await fetch(url, { ...init, headers, signal: controller.signal, redirect: "manual" });
      const idleMs = idleTimeoutFor(rpc);
      if (res.body === null || idleMs === undefined) return res;
      const body = idleBoundedBody(res.body, idleMs, () => {
        const err = toConnectError(
          rpc,
          new LightedgeError(
            "unavailable",
            "edge.origin",
            `the origin sent nothing for ${idleMs / 1000} s mid-answer; retry`,
          ),
        );
        // Ends the fetch too: the stalled connection is not held open.
        controller.abort(err);
        return err;
      });
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    } catch (cause) {
      // The caller gave up (the client's deadline passed, or it went away): say that, not Unavailable.
      if (caller?.aborted && caller.reason instanceof ConnectError) throw caller.reason;
      const err = new LightedgeError("unavailable", "edge.origin", "the origin is unavailable, retry later", {
        cause,
      });
      throw toConnectError(rpc, err);
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * `body` as it arrives, erroring with `onIdle()`'s error when a read waits longer than `ms` for the
 * origin. Pulled only on demand (high-water mark 0), so a slow client's pauses are not the origin's.
 */
function idleBoundedBody(
  body: ReadableStream<Uint8Array>,
  ms: number,
  onIdle: () => Error,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(out) {
        const read = reader.read();
        try {
          const chunk = await withinMs(read, ms, () => {
            throw onIdle();
          });
          if (chunk.done) out.close();
          else out.enqueue(chunk.value);
        } catch (err) {
          read.catch(() => {});
          reader.cancel(err).catch(() => {});
          out.error(err);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

async function throwIfHttpError(rpc: string, res: Response): Promise<void> {
  if (res.status === 200) return;
  const bytes = new Uint8Array(await res.arrayBuffer());
  const fallback = new ConnectError(
    `${rpc}: origin answered HTTP ${res.status}`,
    codeFromHttpStatus(res.status),
  );
  throw checked(rpc, errorFromJsonBytes(bytes, undefined, fallback));
}

async function* streamFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<ReadFrame> {
  for await (const frame of readFrames(body, MAX_ORIGIN_FRAME_BYTES)) {
    if (frame.flag === FLAG_DATA) yield frame;
    else if (frame.flag === FLAG_CONNECT_END_STREAM) {
      const end = endStreamFromJson(frame.message);
      if (end.error !== undefined) throw checked("origin", end.error);
      return;
    } else throw new LightedgeError("malformed", "edge.origin", `unexpected frame flag ${frame.flag}`);
  }
  throw new LightedgeError("unavailable", "edge.origin", "the origin's stream ended early, retry");
}

/** An origin refusing our secret is a deployment fault: hide it from clients, log it. */
function checked(rpc: string, err: ConnectError): Error {
  if (err.code === Code.Unauthenticated || err.code === Code.PermissionDenied) {
    return new LightedgeError("internal", "edge.origin", `${rpc}: origin refused the edge: ${err.message}`);
  }
  return err;
}
