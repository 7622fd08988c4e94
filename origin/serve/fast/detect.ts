import type { IncomingHttpHeaders } from "node:http";
import { CompactTxStreamer } from "../../../proto/index.ts";
import type { RangeRpc } from "../../../proto/pools.ts";
import { type DetectedProtocol, detectProtocol, type RequestHead } from "../../../proto/wire/protocol.ts";

/** The protocols the origin's fast path answers itself (Connect GET stays with connect-node). */
export type FastProtocol = "grpc" | "grpc-web" | "connect-stream" | "connect-unary";

export type FastRangeRpc = RangeRpc;
export type FastBlockRpc = "GetBlock" | "GetBlockNullifiers";
export type FastRpc = FastRangeRpc | FastBlockRpc;

export interface FastCall {
  rpc: FastRpc;
  protocol: FastProtocol;
}

/** What a Node request looks like from its head (method, path, headers, HTTP version). */
export interface FastRequestHead {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  httpVersionMajor: number;
}

const PREFIX = `/${CompactTxStreamer.typeName}/`;
const STREAMS: ReadonlySet<string> = new Set<FastRangeRpc>(["GetBlockRange", "GetBlockRangeNullifiers"]);
const UNARY: ReadonlySet<string> = new Set<FastBlockRpc>(["GetBlock", "GetBlockNullifiers"]);

/** A Node request head as the protocol core reads it (proto/wire/protocol.ts). */
export function nodeRequestHead(req: FastRequestHead): RequestHead {
  return {
    method: req.method ?? "",
    header: (name) => {
      const v = req.headers[name];
      return (Array.isArray(v) ? v[0] : v) ?? null;
    },
    httpVersion: req.httpVersionMajor,
  };
}

/** The RPC a request path names, or undefined for a path outside CompactTxStreamer. */
export function rpcOfPath(url: string | undefined): string | undefined {
  if (url === undefined || !url.startsWith(PREFIX)) return undefined;
  return url.slice(PREFIX.length).split("?", 1)[0]!;
}

/**
 * The block RPCs a binary, uncompressed request can take on the fast path; undefined sends the
 * request to connect-node (JSON codecs, gRPC-web-text, compressed requests, gRPC over HTTP/1,
 * Connect GET, a protocol that does not fit the method — connect-node answers those as it does).
 * A response is never compressed here: `*-accept-encoding` only allows compression.
 */
export function detectFastCall(req: FastRequestHead): FastCall | undefined {
  const name = rpcOfPath(req.url);
  if (name === undefined || req.method !== "POST") return undefined;
  const stream = STREAMS.has(name);
  if (!stream && !UNARY.has(name)) return undefined;
  const protocol = fastProtocol(detectProtocol(nodeRequestHead(req)), req.httpVersionMajor, stream);
  return protocol === undefined ? undefined : { rpc: name as FastRpc, protocol };
}

/**
 * The protocol of a request the fast path can answer for a method with one input message
 * (`stream`: server-streaming): binary, uncompressed, gRPC only over HTTP/2 (trailers), a Connect
 * content type that fits the method.
 */
export function fastProtocol(
  d: DetectedProtocol | undefined,
  httpVersion: number,
  stream: boolean,
): FastProtocol | undefined {
  if (d === undefined || !d.binary || d.text || d.encoding !== undefined) return undefined;
  if (d.protocol === "grpc") return httpVersion === 2 ? "grpc" : undefined;
  if (d.protocol === "grpc-web") return "grpc-web";
  if (d.protocol === "connect-get" || d.stream !== stream) return undefined;
  return d.protocol;
}

export function isRangeRpc(rpc: FastRpc): rpc is FastRangeRpc {
  return STREAMS.has(rpc);
}
