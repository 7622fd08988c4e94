import type { ConnectError } from "@connectrpc/connect";
import { mergeNonProtocolHeaders } from "@connectrpc/connect/protocol";
import { codeToHttpStatus, endStreamToJson, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { setTrailerStatus, trailerSerialize } from "@connectrpc/connect/protocol-grpc-web";
import { encodeFrame, FLAG_CONNECT_END_STREAM, FLAG_GRPC_WEB_TRAILER, FRAME_HEADER_BYTES } from "../frame.ts";
import { contentTypeOf, type WireProtocol } from "./protocol.ts";

/**
 * The ends of responses in each protocol, written with connect-es's own serializers (trailer
 * fields, end-stream JSON, error JSON), so a stored-frame answer is byte for byte the one a
 * Connect router sends uncompressed. Runtime-neutral: the adapters write these bytes and headers.
 */

/** Native gRPC's HTTP trailers: grpc-status 0, or the error's status, message and details. */
export function grpcTrailers(error?: ConnectError): Record<string, string> {
  return Object.fromEntries(setTrailerStatus(new Headers(), error));
}

const okEnd = new Map<WireProtocol, Uint8Array>();

/**
 * The bytes that end a framed response: a gRPC-web trailer frame (grpc-status 0 or the error) or a
 * Connect end-stream frame (`{}` or `{"error":…}`, the error's metadata as connect-es puts it).
 * Native gRPC ends with HTTP trailers (grpcTrailers) and Connect unary has no end: both get none.
 */
export function endOfStream(protocol: WireProtocol, error?: ConnectError): Uint8Array {
  if (error !== undefined) return buildEnd(protocol, error);
  // The success end never changes: built once (a copy each time, as a written chunk may be
  // transferred by the stream).
  let ok = okEnd.get(protocol);
  if (ok === undefined) {
    ok = buildEnd(protocol);
    okEnd.set(protocol, ok);
  }
  return ok.slice();
}

function buildEnd(protocol: WireProtocol, error?: ConnectError): Uint8Array {
  if (protocol === "grpc-web") {
    return encodeFrame(trailerSerialize(setTrailerStatus(new Headers(), error)), FLAG_GRPC_WEB_TRAILER);
  }
  if (protocol === "connect-stream") {
    const json = JSON.stringify(endStreamToJson(new Headers(), error, undefined));
    return encodeFrame(new TextEncoder().encode(json), FLAG_CONNECT_END_STREAM);
  }
  return new Uint8Array(0);
}

/** A whole response an adapter writes as it is: status, headers, body. */
export interface WholeResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** A Connect unary error: the error as JSON with its HTTP status, its metadata as headers. */
export function connectUnaryError(error: ConnectError): WholeResponse {
  const headers = new Headers({ "content-type": "application/json" });
  if (!error.isWireError) mergeNonProtocolHeaders(headers, error.metadata);
  const body = errorToJsonBytes(error, undefined);
  headers.set("content-length", String(body.length));
  return { status: codeToHttpStatus(error.code), headers: Object.fromEntries(headers), body };
}

/**
 * A whole answer for an error known before any message was sent, in any protocol but native gRPC
 * (whose status needs trailers): the framed protocols answer 200 with the status at the end, as
 * connect-es does; Connect unary answers the HTTP status with the error JSON. `binary` false: the
 * client spoke JSON, and a stream's content type must say so or connect-web refuses the answer.
 */
export function earlyError(protocol: WireProtocol, error: ConnectError, binary = true): WholeResponse {
  if (protocol === "connect-unary" || protocol === "connect-get") return connectUnaryError(error);
  const type = contentTypeOf[protocol];
  // The error's metadata (a retry hint) travels in the trailer frame or end-stream JSON, as
  // connect-es writes it; a copy in the HTTP headers would reach clients twice.
  const headers = { "content-type": binary ? type : type.replace(/proto$/, "json") };
  return { status: 200, headers, body: endOfStream(protocol, error) };
}

/** A unary answer in the request's protocol: the bare message, or one frame and the success end. */
export function unaryBody(protocol: WireProtocol, message: Uint8Array): Uint8Array {
  if (!isFramedUnary(protocol)) return message;
  const end = endOfStream(protocol);
  const body = new Uint8Array(FRAME_HEADER_BYTES + message.length + end.length);
  body.set(encodeFrame(message), 0);
  body.set(end, FRAME_HEADER_BYTES + message.length);
  return body;
}

const isFramedUnary = (protocol: WireProtocol) => protocol === "grpc-web" || protocol === "connect-stream";
