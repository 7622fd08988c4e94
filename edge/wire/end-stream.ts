import type { ConnectError } from "@connectrpc/connect";
import { codeToHttpStatus, endStreamToJson, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { setTrailerStatus, trailerSerialize } from "@connectrpc/connect/protocol-grpc-web";
import { encodeFrame, FLAG_CONNECT_END_STREAM, FLAG_GRPC_WEB_TRAILER } from "../../proto/frame.ts";
import type { WireProtocol } from "./protocol.ts";

/** Content type of a successful binary response, per protocol. */
export const contentTypeOf: Record<WireProtocol, string> = {
  "grpc-web": "application/grpc-web+proto",
  "connect-stream": "application/connect+proto",
  "connect-unary": "application/proto",
  "connect-get": "application/proto",
};

/** True when the protocol frames its messages (streams, and gRPC-web even for unary calls). */
export function isFramed(protocol: WireProtocol): boolean {
  return protocol === "grpc-web" || protocol === "connect-stream";
}

/**
 * The bytes that end a framed response: a gRPC-web trailer frame (grpc-status 0 or the error) or a
 * Connect end-stream frame (`{}` or `{"error":…}`). Unary Connect responses have none.
 */
export function endOfStream(protocol: WireProtocol, error?: ConnectError): Uint8Array {
  if (error === undefined) {
    // The success end bytes never change: built once per isolate (a copy each time, since a
    // written chunk may be transferred by the stream).
    let ok = okEnd.get(protocol);
    if (ok === undefined) {
      ok = buildEndOfStream(protocol);
      okEnd.set(protocol, ok);
    }
    return ok.slice();
  }
  return buildEndOfStream(protocol, error);
}

const okEnd = new Map<WireProtocol, Uint8Array>();

function buildEndOfStream(protocol: WireProtocol, error?: ConnectError): Uint8Array {
  if (protocol === "grpc-web") {
    return encodeFrame(trailerSerialize(setTrailerStatus(new Headers(), error)), FLAG_GRPC_WEB_TRAILER);
  }
  if (protocol === "connect-stream") {
    const json = JSON.stringify(endStreamToJson(error?.metadata ?? new Headers(), error, undefined));
    return encodeFrame(new TextEncoder().encode(json), FLAG_CONNECT_END_STREAM);
  }
  return new Uint8Array(0);
}

/**
 * A whole response for an error known before any message was sent. `binary` false: the client
 * spoke JSON, and its stream content type must say so or connect-web refuses the answer.
 */
export function errorResponse(protocol: WireProtocol, error: ConnectError, binary = true): Response {
  const contentType = binary ? contentTypeOf[protocol] : contentTypeOf[protocol].replace(/proto$/, "json");
  if (protocol === "grpc-web") {
    // Trailers-only: the status travels in headers and the body is empty (gRPC-web spec).
    const headers = setTrailerStatus(new Headers({ "content-type": contentType }), error);
    return new Response(null, { status: 200, headers });
  }
  // Error metadata (a retry hint) also travels as HTTP headers, where Connect unary puts it.
  const headers = new Headers(error.metadata);
  if (protocol === "connect-stream") {
    headers.set("content-type", contentType);
    return new Response(endOfStream(protocol, error) as Uint8Array<ArrayBuffer>, { status: 200, headers });
  }
  headers.set("content-type", "application/json");
  return new Response(errorToJsonBytes(error, undefined) as Uint8Array<ArrayBuffer>, {
    status: codeToHttpStatus(error.code),
    headers,
  });
}
