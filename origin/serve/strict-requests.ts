import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { DescMessage } from "@bufbuild/protobuf";
import type { ConnectError } from "@connectrpc/connect";
import type { connectNodeAdapter } from "@connectrpc/connect-node";
import { LightedgeError, toConnectError } from "../../proto/errors.ts";
import { FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { CompactTxStreamer } from "../../proto/index.ts";
import type { RpcErrorLog as ErrorLog } from "../../proto/wire/error-interceptor.ts";
import { maxRequestBytes } from "../../proto/wire/limits.ts";
import { detectProtocol, parseTimeoutMs, timeoutHeaderOf } from "../../proto/wire/protocol.ts";
import {
  decodeJsonRequest,
  decodeRequestMessage,
  readCapped,
  splitEnvelopes,
} from "../../proto/wire/request.ts";
import { type FastProtocol, type FastRequestHead, nodeRequestHead, rpcOfPath } from "./fast/detect.ts";
import { endFramed, sendConnectUnary, startFramed } from "./fast/envelope.ts";
import type { FastResponse } from "./fast/output.ts";

type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;

type Kind = "unary" | "server_streaming" | "client_streaming";
const METHODS = new Map<string, { input: DescMessage; kind: Kind }>(
  CompactTxStreamer.methods
    .filter((m) => m.methodKind !== "bidi_streaming")
    .map((m) => [m.name, { input: m.input, kind: m.methodKind as Kind }]),
);

export interface StrictDeps {
  pushbackMs: number;
  log?: ErrorLog;
}

/** A request the checker can read: its method, protocol, codec and compression. */
interface Checkable {
  rpc: string;
  input: DescMessage;
  kind: Kind;
  /** How errors are answered. */
  protocol: FastProtocol;
  binary: boolean;
  /** gzip / br, or undefined for none. */
  encoding?: "gzip" | "br";
}

/**
 * Checks request bodies before connect-node sees them, because connect-node answers several
 * kinds of bad input as Internal: a message that does not decode ("parse binary: premature EOF"),
 * a compressed frame without an encoding, a body that does not decompress; and protobuf-es reads a
 * field in the wrong wire type as its declared type. Here all of them are the caller's error —
 * InvalidArgument (`<RPC>: cannot decode <Message>`), as on the fast path — and a request frame
 * with the trailer flag is named as such. Every enveloped message is checked (client streams
 * too). A request that passes is handed on with its body replayed; gRPC-web-text, gRPC over
 * HTTP/1.1 and unknown encodings go on untouched (connect-node answers those with typed codes),
 * and JSON bodies are parsed as connect-node parses them.
 */
export function withStrictRequests(deps: StrictDeps, next: NodeHandlerFn): NodeHandlerFn {
  return (req, res) => {
    const call = checkable(req);
    if (call === undefined) {
      next(req, res);
      return;
    }
    check(call, req).then(
      (chunks) => {
        if (chunks instanceof Error) {
          answerError(
            res as unknown as FastResponse,
            call.protocol,
            toConnectError(call.rpc, chunks, {
              pushbackMs: deps.pushbackMs,
              log: (e) => deps.log?.(call.rpc, e),
            }),
          );
          return;
        }
        // connect-node reads the body through `iterator()` (node-universal-handler.js); the body is
        // consumed, so hand it the same bytes again.
        const replay = async function* () {
          yield* chunks;
        };
        Object.defineProperty(req, "iterator", { value: replay, configurable: true });
        next(req, res);
      },
      () => res.destroy(),
    );
  };
}

function encodingOf(value: string | undefined): "gzip" | "br" | undefined | null {
  if (value === undefined) return undefined;
  return value === "gzip" || value === "br" ? value : null;
}

/**
 * The calls whose bodies are checked here (proto/wire/protocol.ts decides the protocol):
 * gRPC over HTTP/2, gRPC-web (not text) and Connect POST whose content type fits the method, with
 * no compression or gzip/br. Anything else goes to connect-node untouched.
 */
function checkable(req: FastRequestHead): Checkable | undefined {
  const rpc = rpcOfPath(req.url);
  const method = rpc === undefined ? undefined : METHODS.get(rpc);
  if (rpc === undefined || method === undefined) return undefined;
  const d = detectProtocol(nodeRequestHead(req));
  if (d === undefined || d.protocol === "connect-get" || d.text) return undefined;
  if (d.protocol === "grpc" && req.httpVersionMajor !== 2) return undefined;
  if (
    (d.protocol === "connect-stream" || d.protocol === "connect-unary") &&
    d.stream !== (method.kind !== "unary")
  )
    return undefined;
  const encoding = encodingOf(d.encoding);
  if (encoding === null) return undefined;
  return { rpc, input: method.input, kind: method.kind, protocol: d.protocol, binary: d.binary, encoding };
}

/** The body's chunks when every message in it is sound, else the error to answer with. */
async function check(
  call: Checkable,
  body: AsyncIterable<Uint8Array> & FastRequestHead,
): Promise<Uint8Array[] | Error> {
  try {
    // A malformed deadline is refused here, quoted briefly (connect-node echoes it whole).
    parseTimeoutMs(call.protocol, nodeRequestHead(body).header(timeoutHeaderOf(call.protocol)));
    // One cap per method (proto/wire/limits.ts); a client stream's envelopes fit in its list cap.
    const max = maxRequestBytes(call.rpc, call.binary);
    const bytes = await readCapped(body, max + FRAME_HEADER_BYTES, call.rpc);
    const messages =
      call.protocol === "connect-unary"
        ? [{ compressed: call.encoding !== undefined, bytes }]
        : splitEnvelopes(bytes, call.encoding !== undefined);
    // Each message is checked, however many: connect-node parses the first before it counts them
    // (a missing or extra message is then its answer, Unimplemented).
    for (const m of messages) {
      const plain = m.compressed ? decompress(call, m.bytes, max) : m.bytes;
      if (call.binary) decodeRequestMessage(call.input, plain, call.rpc);
      else decodeJsonRequest(call.input, plain, call.rpc);
    }
    return [bytes];
  } catch (err) {
    if (err instanceof Error) return err;
    return new LightedgeError("internal", "strict-requests", String(err));
  }
}

function decompress(call: Checkable, bytes: Uint8Array, max: number): Uint8Array {
  try {
    return call.encoding === "br"
      ? brotliDecompressSync(bytes, { maxOutputLength: max })
      : gunzipSync(bytes, { maxOutputLength: max });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE")
      throw new LightedgeError(
        "too-large",
        call.rpc,
        `${call.rpc}: message over ${max} bytes after decompression`,
      );
    throw new LightedgeError(
      "bad-request",
      call.rpc,
      `${call.rpc}: message does not decompress (${call.encoding})`,
      { cause },
    );
  }
}

function answerError(res: FastResponse, protocol: FastProtocol, err: ConnectError): void {
  if (protocol === "connect-unary") {
    sendConnectUnary(res, err);
    return;
  }
  startFramed(res, protocol);
  endFramed(res, protocol, err);
}
