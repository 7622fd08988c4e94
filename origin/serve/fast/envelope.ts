import type { ConnectError } from "@connectrpc/connect";
import { mergeNonProtocolHeaders } from "@connectrpc/connect/protocol";
import { codeToHttpStatus, endStreamToJson, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { setTrailerStatus, trailerSerialize } from "@connectrpc/connect/protocol-grpc-web";
import { encodeFrame, FLAG_CONNECT_END_STREAM, FLAG_GRPC_WEB_TRAILER } from "../../../proto/frame.ts";
import type { FastProtocol } from "./detect.ts";
import type { FastResponse } from "./output.ts";

/**
 * Response heads and ends of each protocol, as connect-node writes them (same headers, trailer
 * fields and end-stream JSON, via connect's own serializers), so a fast-path response is byte for
 * byte the one connect-node would send uncompressed.
 */
const contentTypeOf: Record<FastProtocol, string> = {
  grpc: "application/grpc+proto",
  "grpc-web": "application/grpc-web+proto",
  "connect-stream": "application/connect+proto",
  "connect-unary": "application/proto",
};

/** Starts a framed response (gRPC, gRPC-web, Connect streaming): errors travel at the end. */
export function startFramed(res: FastResponse, protocol: FastProtocol): void {
  res.writeHead(200, { "content-type": contentTypeOf[protocol] });
}

/** Ends a framed response: HTTP trailers (gRPC), a trailer frame (gRPC-web) or an end-stream frame. */
export function endFramed(res: FastResponse, protocol: FastProtocol, error?: ConnectError): void {
  if (protocol === "grpc") {
    res.addTrailers(Object.fromEntries(setTrailerStatus(new Headers(), error)));
    res.end();
  } else if (protocol === "grpc-web") {
    res.end(encodeFrame(trailerSerialize(setTrailerStatus(new Headers(), error)), FLAG_GRPC_WEB_TRAILER));
  } else {
    const json = JSON.stringify(endStreamToJson(new Headers(), error, undefined));
    res.end(encodeFrame(new TextEncoder().encode(json), FLAG_CONNECT_END_STREAM));
  }
}

/** A whole Connect unary response: the bare message, or the error as JSON with its HTTP status. */
export function sendConnectUnary(res: FastResponse, result: Uint8Array | ConnectError): void {
  if (result instanceof Uint8Array) {
    res.writeHead(200, {
      "content-type": contentTypeOf["connect-unary"],
      "content-length": String(result.length),
    });
    res.end(result);
    return;
  }
  const headers = new Headers({ "content-type": "application/json" });
  if (!result.isWireError) mergeNonProtocolHeaders(headers, result.metadata);
  const body = errorToJsonBytes(result, undefined);
  headers.set("content-length", String(body.length));
  res.writeHead(codeToHttpStatus(result.code), Object.fromEntries(headers));
  res.end(body);
}
