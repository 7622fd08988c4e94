import type { IncomingHttpHeaders } from "node:http";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { parseTimeout as parseConnectTimeout } from "@connectrpc/connect/protocol-connect";
import { parseTimeout as parseGrpcTimeout } from "@connectrpc/connect/protocol-grpc";
import { LightedgeError } from "../../../proto/errors.ts";
import { FLAG_DATA, FRAME_HEADER_BYTES } from "../../../proto/frame.ts";
import { decodeStrict } from "../../../proto/strict-decode.ts";
import type { FastProtocol } from "./detect.ts";

/**
 * The request's deadline in ms (grpc-timeout / connect-timeout-ms, parsed as connect-node
 * parses them); a malformed value is the ConnectError connect-node answers (InvalidArgument).
 */
export function requestTimeoutMs(protocol: FastProtocol, headers: IncomingHttpHeaders): number | undefined {
  const name = protocol.startsWith("connect") ? "connect-timeout-ms" : "grpc-timeout";
  const raw = headers[name];
  const value = (Array.isArray(raw) ? raw[0] : raw) ?? null;
  const parsed = protocol.startsWith("connect")
    ? parseConnectTimeout(value, Number.MAX_SAFE_INTEGER)
    : parseGrpcTimeout(value, Number.MAX_SAFE_INTEGER);
  if (parsed.error) throw parsed.error;
  return parsed.timeoutMs;
}

/** Reads a request body, refusing it as soon as it passes `max` bytes (never buffering more). */
export async function readBody(
  body: AsyncIterable<Uint8Array>,
  max: number,
  rpc: string,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > max) throw new LightedgeError("too-large", rpc, `${rpc}: request over ${max} bytes`);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * The one request message of an enveloped body (gRPC, gRPC-web, Connect streaming), with the
 * codes connect-node uses: a torn envelope is InvalidArgument, a missing or extra message is
 * Unimplemented (connect's invoke-implementation).
 */
export function unwrapEnvelope(body: Uint8Array, rpc: string): Uint8Array {
  if (body.length === 0) {
    throw new ConnectError(
      `protocol error: missing input message for ${kindOf(rpc)} method`,
      Code.Unimplemented,
    );
  }
  if (body.length < FRAME_HEADER_BYTES) {
    throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  }
  const length = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(1, false);
  const end = FRAME_HEADER_BYTES + length;
  if (end > body.length) throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  if (end < body.length) {
    throw new ConnectError(
      `protocol error: received extra input message for ${kindOf(rpc)} method`,
      Code.Unimplemented,
    );
  }
  // Only uncompressed data frames reach here (detect.ts refuses encoded requests).
  const flag = body[0]!;
  if (flag !== FLAG_DATA) {
    const what =
      flag & 0x80
        ? "a request frame with the trailer flag (0x80)"
        : flag & 0x01
          ? "a compressed request frame without a message encoding"
          : `a request frame with flags 0x${flag.toString(16).padStart(2, "0")}`;
    throw new ConnectError(`protocol error: ${what}`, Code.InvalidArgument);
  }
  return body.subarray(FRAME_HEADER_BYTES);
}

const kindOf = (rpc: string) => (rpc.startsWith("GetBlockRange") ? "server-streaming" : "unary");

/**
 * Decodes the request message; bytes that do not parse, or a known field in the wrong wire type,
 * are the caller's error (InvalidArgument).
 */
export function decodeRequest<Desc extends DescMessage>(
  schema: Desc,
  bytes: Uint8Array,
  rpc: string,
): MessageShape<Desc> {
  try {
    return decodeStrict(schema, bytes);
  } catch (cause) {
    throw new LightedgeError("bad-request", rpc, `${rpc}: cannot decode ${schema.name}`, { cause });
  }
}
