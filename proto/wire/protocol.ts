import { Code, ConnectError } from "@connectrpc/connect";
import {
  parseContentType as parseConnect,
  parseTimeout as parseConnectTimeout,
} from "@connectrpc/connect/protocol-connect";
import {
  parseContentType as parseGrpc,
  parseTimeout as parseGrpcTimeout,
} from "@connectrpc/connect/protocol-grpc";
import { parseContentType as parseGrpcWeb } from "@connectrpc/connect/protocol-grpc-web";
import { quoteInput } from "../quote.ts";

/**
 * How a request talks, which decides the envelope of its answer. The same rules at the origin
 * (Node) and the edge (Workers); each runtime's adapter says which protocols it serves itself.
 */
export type WireProtocol =
  /** Native gRPC over HTTP/2: frames, then HTTP trailers (grpc-status, grpc-message). Origin only. */
  | "grpc"
  /** gRPC-web: frames, then a trailer frame (flag 0x80) carrying grpc-status. */
  | "grpc-web"
  /** Connect server streaming: frames, then an end-stream frame (flag 0x02) with JSON. */
  | "connect-stream"
  /** Connect unary over POST: the body is the bare message; errors are an HTTP status + JSON. */
  | "connect-unary"
  /** Connect unary over GET (cacheable): the message travels in the query string. */
  | "connect-get";

/** A request head as both runtimes see it. */
export interface RequestHead {
  method: string;
  /** The first value of a request header, or null. */
  header(name: string): string | null;
  /** HTTP major version: gRPC's trailers need 2. */
  httpVersion: number;
  /** `encoding` of a Connect GET (`?encoding=proto|json`), or null. */
  getEncoding?: string | null;
}

export interface DetectedProtocol {
  protocol: WireProtocol;
  /** Protobuf bodies; false for JSON (served by a Connect router, which decodes and re-encodes). */
  binary: boolean;
  /** gRPC-web-text: base64 on the wire both ways. */
  text: boolean;
  /** The request's message encoding (gzip, br, …); undefined for none ("identity"). */
  encoding?: string;
  /** For Connect: whether the content type is a streaming one (a unary method refuses it). */
  stream: boolean;
}

const encodingOf = (value: string | null): string | undefined =>
  value === null || value === "" || value === "identity" ? undefined : value;

/**
 * What a request's method, content type and encoding headers say about its protocol (connect-es's
 * own content-type parsers); undefined when no protocol fits.
 */
export function detectProtocol(head: RequestHead): DetectedProtocol | undefined {
  if (head.method === "GET") {
    const encoding = head.getEncoding ?? null;
    if (encoding !== "proto" && encoding !== "json") return undefined;
    return { protocol: "connect-get", binary: encoding === "proto", text: false, stream: false };
  }
  if (head.method !== "POST") return undefined;
  const type = head.header("content-type");
  const grpc = parseGrpc(type);
  if (grpc !== undefined) {
    const encoding = encodingOf(head.header("grpc-encoding"));
    return { protocol: "grpc", binary: grpc.binary, text: false, encoding, stream: true };
  }
  const web = parseGrpcWeb(type);
  if (web !== undefined) {
    const encoding = encodingOf(head.header("grpc-encoding"));
    return { protocol: "grpc-web", binary: web.binary, text: web.text, encoding, stream: true };
  }
  const connect = parseConnect(type);
  if (connect === undefined) return undefined;
  const encoding = encodingOf(head.header(connect.stream ? "connect-content-encoding" : "content-encoding"));
  return {
    protocol: connect.stream ? "connect-stream" : "connect-unary",
    binary: connect.binary,
    text: false,
    encoding,
    stream: connect.stream,
  };
}

/** Content type of a successful binary response, per protocol. */
export const contentTypeOf: Record<WireProtocol, string> = {
  grpc: "application/grpc+proto",
  "grpc-web": "application/grpc-web+proto",
  "connect-stream": "application/connect+proto",
  "connect-unary": "application/proto",
  "connect-get": "application/proto",
};

/** True when the protocol frames its messages (streams, and the gRPC protocols even for unary calls). */
export function isFramed(protocol: WireProtocol): boolean {
  return protocol === "grpc" || protocol === "grpc-web" || protocol === "connect-stream";
}

/** The deadline header of a protocol: gRPC's `grpc-timeout`, Connect's `connect-timeout-ms`. */
export function timeoutHeaderOf(protocol: WireProtocol): "grpc-timeout" | "connect-timeout-ms" {
  return protocol === "grpc" || protocol === "grpc-web" ? "grpc-timeout" : "connect-timeout-ms";
}

/**
 * Longest deadline honoured: 2³¹ − 1 ms (≈ 24.8 days), the largest delay a timer takes in Node
 * and workerd. Longer ones (`grpc-timeout: 597H`, grpcio's 30-day default) are clamped to it
 * rather than overflowing into an immediate DeadlineExceeded.
 */
export const MAX_DEADLINE_MS = 2 ** 31 - 1;

/** A timer delay both runtimes honour: 0 … MAX_DEADLINE_MS. */
export function clampTimerMs(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_DEADLINE_MS);
}

/**
 * The client's timeout in ms, clamped to MAX_DEADLINE_MS; undefined without one. A malformed value
 * throws the ConnectError connect-es handlers answer (InvalidArgument, "protocol error: invalid …
 * value"): grpc-timeout is 1–8 digits and a unit (gRPC over HTTP/2 spec, "Timeout"),
 * connect-timeout-ms 1–10 digits (Connect protocol spec). The value is quoted briefly: it may be
 * 30 KB of header.
 */
export function parseTimeoutMs(protocol: WireProtocol, value: string | null): number | undefined {
  const name = timeoutHeaderOf(protocol);
  const parsed =
    name === "grpc-timeout"
      ? parseGrpcTimeout(value, Number.POSITIVE_INFINITY)
      : parseConnectTimeout(value, Number.POSITIVE_INFINITY);
  if (parsed.error !== undefined) {
    throw new ConnectError(
      `protocol error: invalid ${name} value: ${quoteInput(value ?? "")}`,
      Code.InvalidArgument,
    );
  }
  return parsed.timeoutMs === undefined ? undefined : Math.min(parsed.timeoutMs, MAX_DEADLINE_MS);
}

/**
 * The deadline header for `remainingMs`, in the protocol's syntax, for a router or an upstream
 * call: grpc-timeout holds at most 8 digits, so whole seconds beyond that (never rounding up).
 */
export function timeoutHeaderValue(protocol: WireProtocol, remainingMs: number): string {
  const ms = Math.floor(clampTimerMs(remainingMs));
  if (timeoutHeaderOf(protocol) === "connect-timeout-ms") return String(ms);
  return ms <= 99_999_999 ? `${ms}m` : `${Math.floor(ms / 1000)}S`;
}

/** The error a call past its deadline ends with (connect-es: "the operation timed out"). */
export function deadlineExceeded(rpc: string): ConnectError {
  return new ConnectError(`${rpc}: the operation timed out`, Code.DeadlineExceeded);
}
