/**
 * Test and bench support: one RPC as raw bytes on the wire (no client library, no compression
 * offered), so fast-path and connect-node responses can be compared byte for byte.
 */
import { request as h1Request } from "node:http";
import { connect as h2Connect } from "node:http2";
import { encodeFrame } from "../../../proto/frame.ts";
import { CompactTxStreamer } from "../../../proto/index.ts";
import type { FastProtocol } from "./detect.ts";

export interface RawResponse {
  status: number;
  contentType: string | undefined;
  body: Buffer;
  /** HTTP trailers (gRPC); empty otherwise. */
  trailers: Record<string, string>;
}

const contentType: Record<FastProtocol, string> = {
  grpc: "application/grpc+proto",
  "grpc-web": "application/grpc-web+proto",
  "connect-stream": "application/connect+proto",
  "connect-unary": "application/proto",
};

/** Sends `message` (a protobuf request) to `rpc` in `protocol`; gRPC over h2c, the rest over HTTP/1.1. */
export function rawCall(
  baseUrl: string,
  protocol: FastProtocol,
  rpc: string,
  message: Uint8Array,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const path = `/${CompactTxStreamer.typeName}/${rpc}`;
  const body = protocol === "connect-unary" ? message : encodeFrame(message);
  const all = { "content-type": contentType[protocol], ...headers };
  return protocol === "grpc" ? h2Call(baseUrl, path, body, all) : h1Call(baseUrl, path, body, all);
}

function h1Call(baseUrl: string, path: string, body: Uint8Array, headers: Record<string, string>) {
  return new Promise<RawResponse>((resolve, reject) => {
    const req = h1Request(new URL(path, baseUrl), { method: "POST", headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers["content-type"],
          body: Buffer.concat(chunks),
          trailers: {},
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

function h2Call(baseUrl: string, path: string, body: Uint8Array, headers: Record<string, string>) {
  return new Promise<RawResponse>((resolve, reject) => {
    const session = h2Connect(baseUrl);
    session.on("error", reject);
    const stream = session.request({ ":method": "POST", ":path": path, te: "trailers", ...headers });
    const chunks: Buffer[] = [];
    let status = 0;
    let type: string | undefined;
    let trailers: Record<string, string> = {};
    stream.on("response", (h) => {
      status = Number(h[":status"]);
      type = h["content-type"];
    });
    stream.on("trailers", (t) => {
      trailers = Object.fromEntries(Object.entries(t).filter(([k]) => !k.startsWith(":"))) as Record<
        string,
        string
      >;
    });
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("error", reject);
    stream.on("close", () => {
      session.close();
      resolve({ status, contentType: type, body: Buffer.concat(chunks), trailers });
    });
    stream.end(body);
  });
}
