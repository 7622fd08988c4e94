import type { IncomingHttpHeaders } from "node:http";
import { parseContentType as parseConnect } from "@connectrpc/connect/protocol-connect";
import { parseContentType as parseGrpc } from "@connectrpc/connect/protocol-grpc";
import { parseContentType as parseGrpcWeb } from "@connectrpc/connect/protocol-grpc-web";
import { CompactTxStreamer } from "../../../proto/index.ts";

/** The envelope a fast-path response needs. */
export type FastProtocol =
  /** Native gRPC over HTTP/2: frames, then HTTP trailers (grpc-status, grpc-message). */
  | "grpc"
  /** gRPC-web: frames, then a trailer frame (flag 0x80). */
  | "grpc-web"
  /** Connect server streaming: frames, then an end-stream frame (flag 0x02, JSON). */
  | "connect-stream"
  /** Connect unary POST: the bare message; errors are an HTTP status + JSON. */
  | "connect-unary";

export type FastRangeRpc = "GetBlockRange" | "GetBlockRangeNullifiers";
export type FastBlockRpc = "GetBlock" | "GetBlockNullifiers";
export type FastRpc = FastRangeRpc | FastBlockRpc;

export interface FastCall {
  rpc: FastRpc;
  protocol: FastProtocol;
}

/** What a fast-path request looks like from its head (method, path, headers, HTTP version). */
export interface FastRequestHead {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  httpVersionMajor: number;
}

const PREFIX = `/${CompactTxStreamer.typeName}/`;
const STREAMS: ReadonlySet<string> = new Set<FastRangeRpc>(["GetBlockRange", "GetBlockRangeNullifiers"]);
const UNARY: ReadonlySet<string> = new Set<FastBlockRpc>(["GetBlock", "GetBlockNullifiers"]);

const header = (h: IncomingHttpHeaders, name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};
const compressed = (value: string | undefined) => value !== undefined && value !== "" && value !== "identity";

/**
 * The block RPCs a binary, uncompressed request can take on the fast path; undefined sends the
 * request to connect-node (JSON codecs, gRPC-web-text, compressed requests, gRPC over HTTP/1,
 * Connect GET, a protocol that does not fit the method — connect-node answers those as it does).
 * A response is never compressed here: `*-accept-encoding` only allows compression.
 */
export function detectFastCall(req: FastRequestHead): FastCall | undefined {
  if (req.method !== "POST" || req.url === undefined || !req.url.startsWith(PREFIX)) return undefined;
  const name = req.url.slice(PREFIX.length).split("?", 1)[0]!;
  const stream = STREAMS.has(name);
  if (!stream && !UNARY.has(name)) return undefined;
  const protocol = detectProtocol(req, stream);
  return protocol === undefined ? undefined : { rpc: name as FastRpc, protocol };
}

/**
 * The protocol of a binary, uncompressed request to a method with one input message (`stream`:
 * server-streaming) that can be answered here; undefined for JSON, gRPC-web-text, compressed
 * requests, gRPC over HTTP/1 (no trailers) or a Connect protocol that does not fit the method.
 */
export function detectProtocol(req: FastRequestHead, stream: boolean): FastProtocol | undefined {
  const type = header(req.headers, "content-type") ?? null;
  const grpcEncoding = header(req.headers, "grpc-encoding");
  const grpc = parseGrpc(type);
  if (grpc !== undefined) {
    // Trailers need HTTP/2 (gRPC over HTTP/1.1 stays with connect-node).
    if (!grpc.binary || req.httpVersionMajor !== 2 || compressed(grpcEncoding)) return undefined;
    return "grpc";
  }
  const web = parseGrpcWeb(type);
  if (web !== undefined) {
    if (!web.binary || web.text || compressed(grpcEncoding)) return undefined;
    return "grpc-web";
  }
  const connect = parseConnect(type);
  if (connect === undefined || !connect.binary || connect.stream !== stream) return undefined;
  const encoding = header(req.headers, stream ? "connect-content-encoding" : "content-encoding");
  if (compressed(encoding)) return undefined;
  return stream ? "connect-stream" : "connect-unary";
}

export function isRangeRpc(rpc: FastRpc): rpc is FastRangeRpc {
  return STREAMS.has(rpc);
}
