import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { LightedgeError, toConnectError } from "../../proto/errors.ts";
import { encodeFrame, FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { BlockIDSchema, CompactBlockSchema } from "../../proto/index.ts";
import { nullifiersOnly } from "../../proto/pools.ts";
import { frameSpan, type Projection, type RangeMeta, rangeKeys } from "../../proto/range/index.ts";
import { beforeDeadline, type Deadline, orDeadline } from "../rpc/deadline.ts";
import type { EdgeServices } from "../services.ts";
import { contentTypeOf, endOfStream, errorResponse } from "../wire/end-stream.ts";
import type { WireProtocol } from "../wire/protocol.ts";
import { readRequestMessage } from "../wire/request.ts";
import { createResponseSink } from "../wire/sink.ts";
import { extentOf, heightOf, notServed } from "./extent.ts";
import { findSealedHash } from "./find-hash.ts";

export type BlockRpc = "GetBlock" | "GetBlockNullifiers";

/** Sealed blocks never change: a GET of one may be cached for a year. */
const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * GetBlock / GetBlockNullifiers: one stored frame (full or nullifiers projection). gRPC-web sends
 * it with its frame header; Connect unary sends the bare protobuf (the ranged read skips the 5
 * header bytes). Heights or hashes the store does not hold go to the origin.
 */
export async function serveGetBlock(
  s: EdgeServices,
  network: string,
  rpc: BlockRpc,
  req: Request,
  protocol: WireProtocol,
  deadline: Deadline,
): Promise<Response> {
  const signal = deadline.signal;
  try {
    if (protocol === "connect-stream")
      throw new LightedgeError("bad-request", "edge.get-block", "a unary call cannot use Connect streaming");
    const id = await beforeDeadline(signal, readRequestMessage(req, protocol, BlockIDSchema));
    const head = await beforeDeadline(signal, s.heads.head(network));
    const extent = extentOf(head);
    if (id.hash.length > 0) {
      if (id.hash.length !== 32)
        throw new LightedgeError("bad-request", "edge.get-block", "a block hash is 32 bytes");
      const found =
        head === null
          ? undefined
          : await beforeDeadline(signal, findSealedHash(s.metas, s.reader, head, id.hash));
      if (found !== undefined)
        return await beforeDeadline(signal, sendSealed(s, found.meta, rpc, found.height, protocol));
    } else {
      const height = heightOf(id.height, "height");
      if (height >= extent.firstHeight && height <= extent.tipHeight) {
        const meta = await beforeDeadline(
          signal,
          s.metas.meta(network, extent.rangeSize, Math.floor(height / extent.rangeSize)),
        );
        return await beforeDeadline(signal, sendSealed(s, meta, rpc, height, protocol));
      }
    }
    const origin = s.origin(network);
    if (origin === undefined) {
      if (id.hash.length > 0)
        throw new LightedgeError("not-found", "edge.get-block", "no sealed block has this hash");
      const h = Number(id.height);
      throw notServed(h, h, extent);
    }
    const bytes = await beforeDeadline(
      signal,
      origin.unary(rpc, toBinary(BlockIDSchema, create(BlockIDSchema, id)), signal, deadline.remainingMs()),
    );
    return sendBytes(bytes, protocol);
  } catch (err) {
    return errorResponse(protocol, toConnectError(rpc, orDeadline(signal, err), s.log));
  }
}

/**
 * GetBlock streams the stored "full" frame untouched. GetBlockNullifiers is that same block with
 * every transaction kept, each pruned to its nullifiers (lightwalletd frontend/service.go
 * GetBlockNullifiers); the stored "nullifiers" projection is GetBlockRangeNullifiers' (shielded
 * transactions only), so one block is decoded and pruned here, as the origin does.
 */
async function sendSealed(
  s: EdgeServices,
  meta: RangeMeta,
  rpc: BlockRpc,
  height: number,
  protocol: WireProtocol,
): Promise<Response> {
  if (rpc === "GetBlockNullifiers") {
    const full = await readSealed(s, meta, "full", height);
    const pruned = nullifiersOnly(fromBinary(CompactBlockSchema, full));
    return sendBytes(toBinary(CompactBlockSchema, pruned), protocol, IMMUTABLE_IF_GET[protocol]);
  }
  const projection: Projection = "full";
  const span = frameSpan(meta, projection, height);
  const framed = protocol === "grpc-web";
  const range = framed
    ? span
    : { offset: span.offset + FRAME_HEADER_BYTES, length: span.length - FRAME_HEADER_BYTES };
  const key = rangeKeys(meta.network, meta.rangeSize, meta.index).data[projection];
  const object = await s.reader.get(key, range);
  if (object === null)
    throw new LightedgeError("corrupt", "edge.get-block", `range object ${key} is missing`);
  if (object.size !== meta.sections[projection].length) {
    await object.body.cancel();
    throw new LightedgeError("corrupt", "edge.get-block", `${key} has the wrong size for its metadata`);
  }
  const trailer = endOfStream(protocol);
  const sink = createResponseSink(range.length + trailer.length);
  void sink
    .pipe(object.body)
    .then(() => sink.write(trailer))
    .then(() => sink.close())
    .catch((err) => sink.abort(err).catch(() => {}));
  const headers: Record<string, string> = { "content-type": contentTypeOf[protocol] };
  if (protocol === "connect-get") headers["cache-control"] = IMMUTABLE;
  return new Response(sink.readable, { status: 200, headers });
}

/** Cache-Control of a sealed block's answer: immutable over Connect GET (a URL per block). */
const IMMUTABLE_IF_GET: Record<WireProtocol, string> = {
  "grpc-web": "no-cache",
  "connect-unary": "no-cache",
  "connect-stream": "no-cache",
  "connect-get": IMMUTABLE,
};

/** One sealed block's stored message (frame header stripped), its length checked against the metadata. */
async function readSealed(s: EdgeServices, meta: RangeMeta, projection: Projection, height: number) {
  const span = frameSpan(meta, projection, height);
  const range = { offset: span.offset + FRAME_HEADER_BYTES, length: span.length - FRAME_HEADER_BYTES };
  const key = rangeKeys(meta.network, meta.rangeSize, meta.index).data[projection];
  const object = await s.reader.get(key, range);
  if (object === null)
    throw new LightedgeError("corrupt", "edge.get-block", `range object ${key} is missing`);
  const bytes = new Uint8Array(await new Response(object.body).arrayBuffer());
  if (bytes.length !== range.length)
    throw new LightedgeError("corrupt", "edge.get-block", `${key} is shorter than its metadata says`);
  return bytes;
}

/** A block answered as bytes (the origin's tail or unknown hash: short-lived, never cached long). */
function sendBytes(message: Uint8Array, protocol: WireProtocol, cacheControl = "no-cache"): Response {
  const body = protocol === "grpc-web" ? concat(encodeFrame(message), endOfStream(protocol)) : message;
  return new Response(body as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: { "content-type": contentTypeOf[protocol], "cache-control": cacheControl },
  });
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
