import { type DescMessage, fromBinary, fromJsonString, type MessageShape } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { concatBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { FLAG_DATA, FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { assertWireTypes } from "../../proto/strict-decode.ts";
import type { WireProtocol } from "./protocol.ts";

/**
 * Body cap for the block RPCs' requests (BlockRange, BlockID): a few dozen bytes in practice.
 * 64 KiB, Zaino's cap for every request body, leaves room for any honest poolTypes list.
 */
export const MAX_BLOCK_REQUEST_BYTES = 64 * 1024;

/** Reads and decodes the single request message of a fast-path call, in any binary protocol. */
export async function readRequestMessage<Desc extends DescMessage>(
  req: Request,
  protocol: WireProtocol,
  schema: Desc,
): Promise<MessageShape<Desc>> {
  return decodeRequestMessage(await readRequestBytes(req, protocol), protocol, schema);
}

/**
 * The request's body as sent (the `message` parameter of a Connect GET), capped at
 * MAX_BLOCK_REQUEST_BYTES: read once, so a fast path can still hand the bytes on to the router.
 */
export async function readRequestBytes(req: Request, protocol: WireProtocol): Promise<Uint8Array> {
  return protocol === "connect-get" ? queryMessage(req) : await readCapped(req, MAX_BLOCK_REQUEST_BYTES);
}

/** Decodes what readRequestBytes read (unframed first in the framed protocols), wire types checked. */
export function decodeRequestMessage<Desc extends DescMessage>(
  bytes: Uint8Array,
  protocol: WireProtocol,
  schema: Desc,
): MessageShape<Desc> {
  const message = protocol === "grpc-web" || protocol === "connect-stream" ? unframe(bytes) : bytes;
  checkWire(schema, message);
  try {
    return fromBinary(schema, message);
  } catch (cause) {
    throw new LightedgeError("bad-request", "wire.request", `cannot decode ${schema.name}`, { cause });
  }
}

/**
 * Refuses a request message that is truncated or sends a field in the wrong wire type
 * (proto/strict-decode.ts): protobuf-es would read a fixed32 height as 4294967295, and connect-es
 * answers a truncated body as Internal; both are the client's error (InvalidArgument).
 */
export function checkWire(schema: DescMessage, message: Uint8Array): void {
  try {
    assertWireTypes(schema, message);
  } catch (cause) {
    const problem = cause instanceof Error ? cause.message : String(cause);
    throw new LightedgeError("bad-request", "wire.request", `cannot decode ${schema.name}: ${problem}`, {
      cause,
    });
  }
}

/**
 * A binary request for the Connect router, its message checked first (see checkWire). The body is
 * read (capped) and handed on unchanged; JSON and client-streaming requests pass as they are.
 */
export async function checkedRouterRequest(
  req: Request,
  protocol: WireProtocol,
  schema: DescMessage,
  maxBytes: number,
  binary: boolean,
): Promise<Request> {
  const bytes = await readCapped(req, maxBytes);
  const message = isFramedProtocol(protocol) ? unframe(bytes) : bytes;
  if (binary) checkWire(schema, message);
  else checkJson(schema, message);
  return new Request(req.url, {
    method: req.method,
    headers: req.headers,
    body: bytes as Uint8Array<ArrayBuffer>,
    signal: req.signal,
  });
}

/** Longest decoder message passed on for a JSON request (it quotes the offending value). */
const MAX_JSON_PROBLEM_CHARS = 120;

/**
 * A JSON request message decoded once here, so that a decode error is ours: protobuf-es quotes the
 * offending value whole ("expected bigint (uint64): <100 KB>") and connect-es passes it on.
 */
function checkJson(schema: DescMessage, message: Uint8Array): void {
  if (message.length === 0) return; // the router decides what an empty body means
  try {
    fromJsonString(schema, new TextDecoder().decode(message));
  } catch (cause) {
    const text = cause instanceof Error ? cause.message : String(cause);
    const short = text.length > MAX_JSON_PROBLEM_CHARS ? `${text.slice(0, MAX_JSON_PROBLEM_CHARS)}…` : text;
    throw new LightedgeError(
      "bad-request",
      "wire.request",
      `cannot decode ${schema.name} from JSON: ${short}`,
      {
        cause,
      },
    );
  }
}

const isFramedProtocol = (p: WireProtocol) => p === "grpc-web" || p === "connect-stream";

/** The `message` query parameter of a Connect GET (base64url when `base64=1`). */
function queryMessage(req: Request): Uint8Array {
  const params = new URL(req.url).searchParams;
  const message = params.get("message") ?? "";
  if (message.length > (MAX_BLOCK_REQUEST_BYTES * 4) / 3) throw tooLarge(MAX_BLOCK_REQUEST_BYTES);
  if (params.get("compression")) throw unsupportedCompression();
  try {
    return params.get("base64") === "1" ? base64Decode(message) : new TextEncoder().encode(message);
  } catch (cause) {
    throw new LightedgeError("bad-request", "wire.request", "bad base64 in the message parameter", { cause });
  }
}

/** One enveloped message: a data flag, a length that matches the rest of the body. */
function unframe(bytes: Uint8Array): Uint8Array {
  if (bytes.length < FRAME_HEADER_BYTES) {
    throw new LightedgeError("bad-request", "wire.request", "request body is not one enveloped message");
  }
  // 0x80 marks a gRPC-web trailer frame (0x02 a Connect end-stream): never part of a request.
  if ((bytes[0]! & 0x80) !== 0 || bytes[0] === 0x02) {
    throw new LightedgeError(
      "bad-request",
      "wire.request",
      `request frame has flag 0x${bytes[0]!.toString(16).padStart(2, "0")} (end of stream); a request is one data frame`,
    );
  }
  if (bytes[0] !== FLAG_DATA) throw unsupportedCompression();
  const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(1, false);
  if (length !== bytes.length - FRAME_HEADER_BYTES) {
    throw new LightedgeError(
      "bad-request",
      "wire.request",
      "request envelope length disagrees with the body",
    );
  }
  return bytes.subarray(FRAME_HEADER_BYTES);
}

/** Reads a body, refusing it as soon as it passes `max` bytes (never buffering more). */
export async function readCapped(req: Request, max: number): Promise<Uint8Array> {
  const length = req.headers.get("content-length");
  const declared = Number(length ?? 0);
  if (declared > max) throw tooLarge(max);
  if (req.body === null) return new Uint8Array(0);
  // A declared length within the cap (the runtime holds the body to it): one native read, no JS
  // chunk loop — the usual case for the few-byte requests of every RPC.
  if (length !== null && /^\d+$/.test(length)) {
    const bytes = new Uint8Array(await req.arrayBuffer());
    if (bytes.length > max) throw tooLarge(max);
    return bytes;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of req.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.length;
    if (total > max) throw tooLarge(max);
    chunks.push(chunk);
  }
  return concatBytes(chunks);
}

function tooLarge(max: number): LightedgeError {
  return new LightedgeError("too-large", "wire.request", `request body over ${max} bytes`);
}

function unsupportedCompression(): LightedgeError {
  return new LightedgeError("unsupported", "wire.request", "compressed requests are not supported");
}
