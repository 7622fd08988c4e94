import type { ConnectError } from "@connectrpc/connect";
import { connectUnaryError, endOfStream, grpcTrailers } from "../../../proto/wire/end-stream.ts";
import { contentTypeOf } from "../../../proto/wire/protocol.ts";
import type { FastProtocol } from "./detect.ts";
import type { FastResponse } from "./output.ts";

/**
 * The Node side of response envelopes: the bytes and trailers come from the protocol core
 * (proto/wire/end-stream.ts), so a fast-path response is byte for byte the one connect-node sends.
 */

/** Starts a framed response (gRPC, gRPC-web, Connect streaming): errors travel at the end. */
export function startFramed(res: FastResponse, protocol: FastProtocol): void {
  res.writeHead(200, { "content-type": contentTypeOf[protocol] });
}

/** Ends a framed response: HTTP trailers (gRPC), a trailer frame (gRPC-web) or an end-stream frame. */
export function endFramed(res: FastResponse, protocol: FastProtocol, error?: ConnectError): void {
  if (protocol === "grpc") {
    res.addTrailers(grpcTrailers(error));
    res.end();
  } else {
    res.end(endOfStream(protocol, error));
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
  const error = connectUnaryError(result);
  res.writeHead(error.status, error.headers);
  res.end(error.body);
}
