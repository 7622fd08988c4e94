import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { type DescMessage, fromJsonString } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { parseContentType as parseConnect } from "@connectrpc/connect/protocol-connect";
import { parseContentType as parseGrpc } from "@connectrpc/connect/protocol-grpc";
import { parseContentType as parseGrpcWeb } from "@connectrpc/connect/protocol-grpc-web";
import type { connectNodeAdapter } from "@connectrpc/connect-node";
import { LightedgeError } from "../../proto/errors.ts";
import { FLAG_DATA, FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { CompactTxStreamer } from "../../proto/index.ts";
import type { FastProtocol, FastRequestHead } from "./fast/detect.ts";
import { endFramed, sendConnectUnary, startFramed } from "./fast/envelope.ts";
import type { FastResponse } from "./fast/output.ts";
import { decodeRequest, readBody } from "./fast/request.ts";
import { type ErrorLog, rpcError } from "./rpc-errors.ts";

type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;

const PREFIX = `/${CompactTxStreamer.typeName}/`;
const FLAG_COMPRESSED = 0x01;

type Kind = "unary" | "server_streaming" | "client_streaming";
const METHODS = new Map<string, { input: DescMessage; kind: Kind }>(
  CompactTxStreamer.methods
    .filter((m) => m.methodKind !== "bidi_streaming")
    .map((m) => [m.name, { input: m.input, kind: m.methodKind as Kind }]),
);

export interface StrictDeps {
  readMaxBytes: number;
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
    check(deps, call, req).then(
      (chunks) => {
        if (chunks instanceof Error) {
          answerError(
            res as unknown as FastResponse,
            call.protocol,
            rpcError(call.rpc, chunks, deps.pushbackMs, deps.log),
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

const header = (req: FastRequestHead, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

function encodingOf(value: string | undefined): "gzip" | "br" | undefined | null {
  if (value === undefined || value === "" || value === "identity") return undefined;
  return value === "gzip" || value === "br" ? value : null;
}

function checkable(req: FastRequestHead): Checkable | undefined {
  if (req.method !== "POST" || req.url === undefined || !req.url.startsWith(PREFIX)) return undefined;
  const rpc = req.url.slice(PREFIX.length).split("?", 1)[0]!;
  const method = METHODS.get(rpc);
  if (method === undefined) return undefined;
  const base = { rpc, input: method.input, kind: method.kind };
  const type = header(req, "content-type") ?? null;
  const grpc = parseGrpc(type);
  if (grpc !== undefined) {
    const encoding = encodingOf(header(req, "grpc-encoding"));
    if (req.httpVersionMajor !== 2 || encoding === null) return undefined;
    return { ...base, protocol: "grpc", binary: grpc.binary, encoding };
  }
  const web = parseGrpcWeb(type);
  if (web !== undefined) {
    const encoding = encodingOf(header(req, "grpc-encoding"));
    if (web.text || encoding === null) return undefined;
    return { ...base, protocol: "grpc-web", binary: web.binary, encoding };
  }
  const connect = parseConnect(type);
  if (connect === undefined || connect.stream !== (method.kind !== "unary")) return undefined;
  const encoding = encodingOf(header(req, connect.stream ? "connect-content-encoding" : "content-encoding"));
  if (encoding === null) return undefined;
  return {
    ...base,
    protocol: connect.stream ? "connect-stream" : "connect-unary",
    binary: connect.binary,
    encoding,
  };
}

/** The body's chunks when every message in it is sound, else the error to answer with. */
async function check(
  deps: StrictDeps,
  call: Checkable,
  body: AsyncIterable<Uint8Array>,
): Promise<Uint8Array[] | Error> {
  try {
    // Client streams may carry many messages; each is bounded by readMaxBytes, the body by this.
    const max =
      call.kind === "client_streaming" ? 4 * deps.readMaxBytes : deps.readMaxBytes + FRAME_HEADER_BYTES;
    const bytes = await readBody(body, max, call.rpc);
    const messages =
      call.protocol === "connect-unary"
        ? [{ compressed: call.encoding !== undefined, bytes }]
        : splitEnvelopes(bytes, call);
    // Each message is checked, however many: connect-node parses the first before it counts them
    // (a missing or extra message is then its answer, Unimplemented).
    for (const m of messages) {
      const plain = m.compressed ? decompress(call, m.bytes, deps.readMaxBytes) : m.bytes;
      if (call.binary) decodeRequest(call.input, plain, call.rpc);
      else decodeJson(call, plain);
    }
    return [bytes];
  } catch (err) {
    if (err instanceof Error) return err;
    return new LightedgeError("internal", "strict-requests", String(err));
  }
}

/** The messages of an enveloped body (gRPC, gRPC-web, Connect streaming), flags checked. */
function splitEnvelopes(body: Uint8Array, call: Checkable): { compressed: boolean; bytes: Uint8Array }[] {
  const out: { compressed: boolean; bytes: Uint8Array }[] = [];
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let at = 0;
  while (at < body.length) {
    if (at + FRAME_HEADER_BYTES > body.length) {
      throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
    }
    const flag = body[at]!;
    const end = at + FRAME_HEADER_BYTES + view.getUint32(at + 1, false);
    if (end > body.length)
      throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
    if (flag !== FLAG_DATA && !(flag === FLAG_COMPRESSED && call.encoding !== undefined)) {
      const what =
        flag & 0x80
          ? "a request frame with the trailer flag (0x80)"
          : flag === FLAG_COMPRESSED
            ? "a compressed request frame without a message encoding"
            : `a request frame with flags 0x${flag.toString(16).padStart(2, "0")}`;
      throw new ConnectError(`protocol error: ${what}`, Code.InvalidArgument);
    }
    out.push({ compressed: flag === FLAG_COMPRESSED, bytes: body.subarray(at + FRAME_HEADER_BYTES, end) });
    at = end;
  }
  return out;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A JSON request message, parsed as connect-node parses it (unknown fields ignored). Checked here
 * because connect-node's parse error quotes the input, and a lone surrogate in it (`"\ud800"`)
 * makes its gRPC trailer encoding throw: the call then never gets an answer.
 */
function decodeJson(call: Checkable, bytes: Uint8Array): void {
  try {
    fromJsonString(call.input, utf8.decode(bytes), { ignoreUnknownFields: true });
  } catch (cause) {
    throw new LightedgeError(
      "bad-request",
      call.rpc,
      `${call.rpc}: cannot decode ${call.input.name} from JSON`,
      {
        cause,
      },
    );
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

function answerError(res: FastResponse, protocol: FastProtocol, err: ReturnType<typeof rpcError>): void {
  if (protocol === "connect-unary") {
    sendConnectUnary(res, err);
    return;
  }
  startFramed(res, protocol);
  endFramed(res, protocol, err);
}
