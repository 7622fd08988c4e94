import { parseContentType as parseConnect } from "@connectrpc/connect/protocol-connect";
import { parseContentType as parseGrpcWeb } from "@connectrpc/connect/protocol-grpc-web";

/**
 * How a request talks: which envelope its response needs. Only binary (protobuf) requests take the
 * stored-frame fast path; JSON codecs go through the Connect router, which decodes and re-encodes.
 */
export type WireProtocol =
  /** gRPC-web: frames, then a trailer frame (flag 0x80) carrying grpc-status. */
  | "grpc-web"
  /** Connect server streaming: frames, then an end-stream frame (flag 0x02) with JSON. */
  | "connect-stream"
  /** Connect unary over POST: the body is the bare message; errors are HTTP status + JSON. */
  | "connect-unary"
  /** Connect unary over GET (cacheable): the message travels in the query string. */
  | "connect-get";

export interface DetectedProtocol {
  protocol: WireProtocol;
  /** True for protobuf bodies; false for JSON (served by the router, not the fast path). */
  binary: boolean;
  /** gRPC-web-text: base64 on the wire, translated by the grpc-web-text wrapper. */
  text: boolean;
}

/** What a request's method and content type say about its protocol; undefined when neither fits. */
export function detectProtocol(req: Request): DetectedProtocol | undefined {
  if (req.method === "GET") {
    const encoding = new URL(req.url).searchParams.get("encoding");
    if (encoding !== "proto" && encoding !== "json") return undefined;
    return { protocol: "connect-get", binary: encoding === "proto", text: false };
  }
  if (req.method !== "POST") return undefined;
  const contentType = req.headers.get("content-type");
  const web = parseGrpcWeb(contentType);
  if (web !== undefined) return { protocol: "grpc-web", binary: web.binary, text: web.text };
  const connect = parseConnect(contentType);
  if (connect === undefined) return undefined;
  return {
    protocol: connect.stream ? "connect-stream" : "connect-unary",
    binary: connect.binary,
    text: false,
  };
}
