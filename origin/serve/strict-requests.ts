import type { DescMessage } from "@bufbuild/protobuf";
import type { connectNodeAdapter } from "@connectrpc/connect-node";
import { LightedgeError } from "../../proto/errors.ts";
import { FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { CompactTxStreamer } from "../../proto/index.ts";
import { detectProtocol, type FastProtocol, type FastRequestHead } from "./fast/detect.ts";
import { endFramed, sendConnectUnary, startFramed } from "./fast/envelope.ts";
import type { FastResponse } from "./fast/output.ts";
import { decodeRequest, readBody, unwrapEnvelope } from "./fast/request.ts";
import { type ErrorLog, rpcError } from "./rpc-errors.ts";

type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;

const PREFIX = `/${CompactTxStreamer.typeName}/`;

/** Methods with exactly one input message, by name: what a request body can be checked against. */
const SINGLE_INPUT = new Map<string, { input: DescMessage; stream: boolean }>(
  CompactTxStreamer.methods
    .filter((m) => m.methodKind === "unary" || m.methodKind === "server_streaming")
    .map((m) => [m.name, { input: m.input, stream: m.methodKind === "server_streaming" }]),
);

export interface StrictDeps {
  readMaxBytes: number;
  pushbackMs: number;
  log?: ErrorLog;
}

/**
 * Checks binary, uncompressed request messages before connect-node sees them, because
 * connect-node answers a message that does not decode as Internal ("parse binary: premature EOF")
 * and protobuf-es reads a field in the wrong wire type as its declared type. Here both are the
 * caller's error — InvalidArgument, `<RPC>: cannot decode <Message>` — as on the fast path, and a
 * request frame with the trailer or compressed flag is named as such. A request that passes is
 * handed on with its body replayed; JSON, compressed and other requests go on untouched (connect's
 * JSON parser already answers InvalidArgument).
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

interface Checkable {
  rpc: string;
  input: DescMessage;
  protocol: FastProtocol;
}

function checkable(req: FastRequestHead): Checkable | undefined {
  if (req.method !== "POST" || req.url === undefined || !req.url.startsWith(PREFIX)) return undefined;
  const rpc = req.url.slice(PREFIX.length).split("?", 1)[0]!;
  const method = SINGLE_INPUT.get(rpc);
  if (method === undefined) return undefined;
  const protocol = detectProtocol(req, method.stream);
  return protocol === undefined ? undefined : { rpc, input: method.input, protocol };
}

/** The body's chunks when its message decodes, else the error to answer with. */
async function check(
  deps: StrictDeps,
  call: Checkable,
  body: AsyncIterable<Uint8Array>,
): Promise<Uint8Array[] | Error> {
  try {
    const bytes = await readBody(body, deps.readMaxBytes + FRAME_HEADER_BYTES, call.rpc);
    // An empty enveloped body is connect-node's to answer (a missing message, Unimplemented).
    if (bytes.length === 0) return [];
    const message = call.protocol === "connect-unary" ? bytes : unwrapEnvelope(bytes, call.rpc);
    decodeRequest(call.input, message, call.rpc);
    return [bytes];
  } catch (err) {
    if (err instanceof Error) return err;
    return new LightedgeError("internal", "strict-requests", String(err));
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
