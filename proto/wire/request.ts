import { type DescMessage, fromBinary, fromJsonString, type MessageShape } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { Code, ConnectError } from "@connectrpc/connect";
import { concatBytes } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import { FLAG_COMPRESSED, FLAG_DATA, FRAME_HEADER_BYTES } from "../frame.ts";
import { CompactTxStreamer } from "../index.ts";
import { assertWireTypes } from "../strict-decode.ts";
import { isFramed, type WireProtocol } from "./protocol.ts";

/**
 * Reading a request's one message, with the codes connect-es gives (so a stored-frame fast path
 * answers exactly as the router it bypasses) and the checks connect-es lacks (wire types,
 * truncation: protobuf-es reads a fixed32 height as 4294967295, and a truncated body reaches a
 * handler as Internal). The same at the origin and the edge.
 */

/** Reads a body, refusing it as soon as it passes `max` bytes (never buffering more). */
export async function readCapped(
  body: AsyncIterable<Uint8Array> | null,
  max: number,
  rpc: string,
): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > max) throw tooLarge(rpc, max);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : concatBytes(chunks);
}

export function tooLarge(rpc: string, max: number): LightedgeError {
  return new LightedgeError("too-large", rpc, `${rpc}: request body over ${max} bytes`);
}

/** `unary` or `server-streaming`: how connect-es names the method in its envelope errors. */
export type MethodKind = "unary" | "server-streaming";

/**
 * The one message of an enveloped request body (gRPC, gRPC-web, Connect streaming), with
 * connect-es's codes (its invoke-implementation and envelope reader): a torn envelope is
 * InvalidArgument, a missing or extra message Unimplemented. Only uncompressed data frames are
 * messages here; a frame with the trailer or end-stream flag is named as such.
 */
export function unwrapEnvelope(body: Uint8Array, kind: MethodKind): Uint8Array {
  if (body.length === 0) {
    throw new ConnectError(`protocol error: missing input message for ${kind} method`, Code.Unimplemented);
  }
  if (body.length < FRAME_HEADER_BYTES) {
    throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  }
  const length = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(1, false);
  const end = FRAME_HEADER_BYTES + length;
  if (end > body.length) throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  if (end < body.length) {
    throw new ConnectError(
      `protocol error: received extra input message for ${kind} method`,
      Code.Unimplemented,
    );
  }
  const flag = body[0]!;
  if (flag !== FLAG_DATA)
    throw new ConnectError(`protocol error: ${describeFlag(flag)}`, Code.InvalidArgument);
  return body.subarray(FRAME_HEADER_BYTES);
}

/** One message of an enveloped body, still compressed when its frame says so. */
export interface RequestEnvelope {
  compressed: boolean;
  bytes: Uint8Array;
}

/**
 * Every message of an enveloped body (a client stream's several), flags checked: a torn envelope
 * is InvalidArgument, as connect-es's envelope reader answers it; a compressed frame is a message
 * only when the call named an encoding (`compressedAllowed`), and any other flag is named
 * (describeFlag) instead of reaching connect-es, which answers those as Internal.
 */
export function splitEnvelopes(body: Uint8Array, compressedAllowed: boolean): RequestEnvelope[] {
  const out: RequestEnvelope[] = [];
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let at = 0;
  while (at < body.length) {
    if (at + FRAME_HEADER_BYTES > body.length) {
      throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
    }
    const flag = body[at]!;
    const end = at + FRAME_HEADER_BYTES + view.getUint32(at + 1, false);
    if (end > body.length)
      throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
    if (flag !== FLAG_DATA && !(flag === FLAG_COMPRESSED && compressedAllowed))
      throw new ConnectError(`protocol error: ${describeFlag(flag)}`, Code.InvalidArgument);
    out.push({ compressed: flag === FLAG_COMPRESSED, bytes: body.subarray(at + FRAME_HEADER_BYTES, end) });
    at = end;
  }
  return out;
}

/** What a request frame's non-data flag means, for an error message. */
export function describeFlag(flag: number): string {
  if (flag & 0x80) return "a request frame with the trailer flag (0x80)";
  if (flag === 0x02) return "a request frame with the end-stream flag (0x02)";
  if (flag & 0x01) return "a compressed request frame without a message encoding";
  return `a request frame with flags 0x${flag.toString(16).padStart(2, "0")}`;
}

/** Longest decoder problem passed on in a message (protobuf-es may quote the offending value). */
const MAX_PROBLEM_CHARS = 120;

const problemOf = (cause: unknown): string => {
  const text = cause instanceof Error ? cause.message : String(cause);
  return text.length > MAX_PROBLEM_CHARS ? `${text.slice(0, MAX_PROBLEM_CHARS)}…` : text;
};

/**
 * Decodes a binary request message; bytes that do not parse, or a known field in the wrong wire
 * type (proto/strict-decode.ts), are the caller's error (InvalidArgument).
 */
export function decodeRequestMessage<Desc extends DescMessage>(
  schema: Desc,
  bytes: Uint8Array,
  rpc: string,
): MessageShape<Desc> {
  try {
    assertWireTypes(schema, bytes);
    return fromBinary(schema, bytes);
  } catch (cause) {
    throw new LightedgeError(
      "bad-request",
      rpc,
      `${rpc}: cannot decode ${schema.name}: ${problemOf(cause)}`,
      {
        cause,
      },
    );
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Decodes a JSON request message as a Connect router does (unknown fields ignored), so that a
 * decode error is ours: protobuf-es quotes the offending value whole, and a lone surrogate in
 * it makes connect's grpc-message encoding throw (the call would end with no status).
 */
export function decodeJsonRequest<Desc extends DescMessage>(
  schema: Desc,
  bytes: Uint8Array,
  rpc: string,
): MessageShape<Desc> {
  try {
    return fromJsonString(schema, utf8.decode(bytes), { ignoreUnknownFields: true });
  } catch (cause) {
    throw new LightedgeError(
      "bad-request",
      rpc,
      `${rpc}: cannot decode ${schema.name} from JSON: ${problemOf(cause)}`,
      { cause },
    );
  }
}

/**
 * The `message` query parameter of a Connect GET (base64url when `base64=1`), capped at `max`
 * decoded bytes; compressed GET messages are not accepted.
 */
export function connectGetMessage(params: URLSearchParams, max: number, rpc: string): Uint8Array {
  const message = params.get("message") ?? "";
  if (message.length > Math.ceil((max * 4) / 3) + 4) throw tooLarge(rpc, max);
  if (params.get("compression")) {
    throw new LightedgeError("unsupported", rpc, `${rpc}: compressed GET messages are not supported`);
  }
  try {
    return params.get("base64") === "1" ? base64Decode(message) : new TextEncoder().encode(message);
  } catch (cause) {
    throw new LightedgeError("bad-request", rpc, `${rpc}: bad base64 in the message parameter`, { cause });
  }
}

const kindOfMethod = new Map<string, MethodKind>(
  CompactTxStreamer.methods.map((m) => [
    m.name,
    m.methodKind === "server_streaming" ? "server-streaming" : "unary",
  ]),
);

/** How connect-es names a CompactTxStreamer method's kind in its envelope errors. */
export function methodKindOf(rpc: string): MethodKind {
  return kindOfMethod.get(rpc) ?? "unary";
}

/**
 * A request body's one message in `protocol`, decoded: unwrapped from its envelope in the framed
 * protocols (unwrapEnvelope), as is in Connect unary and GET. Binary bodies only.
 */
export function decodeRequest<Desc extends DescMessage>(
  schema: Desc,
  body: Uint8Array,
  rpc: string,
  protocol: WireProtocol,
): MessageShape<Desc> {
  const message = isFramed(protocol) ? unwrapEnvelope(body, methodKindOf(rpc)) : body;
  return decodeRequestMessage(schema, message, rpc);
}
